# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the suites that run a real Slurm on localhost (munge, slurmctld,
# slurmd from Debian's packages), started in setup_file and stopped in
# teardown_file. Jobs run as an unprivileged user, so the plugin's "read
# user files as the user" rule is exercised for real.
load helpers
load claims
bats_require_minimum_version 1.5.0

# SLURM_PIN_INSTALLED=1: against the installed Debian packages instead of
# the build tree: the plugin where Slurm loads plugins, and the installed Lua
# policy. Either way plugstack.conf is the line the docs give (no
# threads_lib=: the plugin finds its thread library beside itself, in the
# build tree as where the packages put it).
if [ -n "${SLURM_PIN_INSTALLED:-}" ]; then
  PLUGIN=$(dpkg -L slurm-pin-spank | grep '/slurm-wlm/slurm_pin\.so$')
else
  PLUGIN=$BUILD/lib/slurm_pin.so
fi

# The policy's modules installed into directory $1 by the cp lines of
# docs/policy.md "Installing", run as written (from the source tree, the
# build tree where they say build/, $1 where they say /etc/slurm/): a file
# the docs forget is missing here too. The rules file is the suite's own.
# From the packages (SLURM_PIN_INSTALLED) the lines that copy from /usr,
# from a build the others.
install_policy_as_documented() {
  local src line from=-v
  src=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  [ -z "${SLURM_PIN_INSTALLED:-}" ] || from=
  while IFS= read -r line; do
    line=${line%%#*}
    line=${line//\/etc\/slurm\//$1\/}
    line=${line// build\// $BUILD\/}
    (cd "$src" && eval "$line") || return 1
  done < <(sed -n '/^## Installing/,/^## [^I]/p' "$src/docs/policy.md" | grep -E '^    cp ' |
    grep -v 'slurm-pin-policy.lua' | grep $from -E '^    cp /usr/')
}
LOCAL_CLUSTER=$BATS_TEST_DIRNAME/../slurm/local-cluster
PROGRAMS=$BATS_TEST_DIRNAME/../programs
TEST_USER=slurmpin-test

# Jobs run as $TEST_USER, who must reach the plugin, the build tree and the
# fixtures: a checkout under a private directory (mktemp -d is 0700) gets
# o+x on the directories above it that lack it, for the suite only.
grant_traversal() {
  local dir
  dir=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  : >"$CLUSTER/granted"
  while [ "$dir" != / ]; do
    if ! runuser -u "$TEST_USER" -- test -x "$dir"; then
      chmod o+x "$dir"
      echo "$dir" >>"$CLUSTER/granted"
    fi
    dir=$(dirname "$dir")
  done
}

restore_traversal() {
  [ -f "$CLUSTER/granted" ] || return 0
  while read -r dir; do chmod o-x "$dir"; done <"$CLUSTER/granted"
}

# slurm_up TASK_PLUGIN [PLUGSTACK_ARGS...]: a cluster for the whole file.
slurm_up() {
  local task=$1
  shift
  if [ "$(id -u)" -ne 0 ]; then
    echo "the Slurm suites must run as root: they start munged, slurmctld and slurmd" >&2
    return 1
  fi
  id "$TEST_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/bash "$TEST_USER"
  # Under a directory only root can change: run_dir= and topology_cache=
  # below it are refused under a world-writable one such as /tmp.
  CLUSTER=$(mktemp -d /run/slurm-pin-cluster.XXXXXX)
  WORK=$(mktemp -d /tmp/slurm-pin-work.XXXXXX)
  chmod 755 "$CLUSTER" "$WORK"
  chown "$TEST_USER" "$WORK"
  STORE=$CLUSTER/store
  mkdir -m 755 "$STORE"
  export CLUSTER WORK STORE SLURM_CONF=$CLUSTER/slurm.conf
  grant_traversal
  if [ -n "${SLURM_PIN_JOB_SUBMIT:-}" ]; then
    # job_submit/lua loads job_submit.lua from slurm.conf's directory.
    install_policy_as_documented "$CLUSTER" || return 1
    export SLURM_PIN_EXTRA_CONF="JobSubmitPlugins=lua${SLURM_PIN_EXTRA_CONF:+
$SLURM_PIN_EXTRA_CONF}"
  fi
  build_programs
  "$LOCAL_CLUSTER" up "$CLUSTER" "$task" \
    "required $PLUGIN store=$STORE topology_cache=$CLUSTER/node-topology.xml run_dir=$CLUSTER/pin-run $*" >&2
}

# Puts a profile file into the store as APP at THREADS threads, version V.
store_profile() {
  local file=$1 app=$2 threads=$3 version=${4:-1}
  install -d -m 755 "$STORE/$app"
  install -m 644 "$file" "$STORE/$app/t$threads.v$version.profile"
}

slurm_down() {
  [ -n "${CLUSTER:-}" ] && "$LOCAL_CLUSTER" down "$CLUSTER"
  [ -n "${CLUSTER:-}" ] && restore_traversal
  [ -n "${CLUSTER:-}" ] && rm -rf "$CLUSTER" "$WORK"
  return 0
}

# The OpenMP reporter built with GCC (libgomp) and, when clang and LLVM's
# libomp are installed (scripts/llvm-env), with LLVM's libomp.
build_programs() {
  mkdir -p "$WORK/bin"
  gcc -O1 -fopenmp "$PROGRAMS/omp_report.c" -o "$WORK/bin/omp_gomp" -lnuma
  if [ -n "$SP_CLANG" ]; then
    "$SP_CLANG" -O1 -fopenmp "$PROGRAMS/omp_report.c" -o "$WORK/bin/omp_llvm" -lnuma -Wl,-rpath,"$SP_LLVM_LIB"
  fi
  chmod -R a+rX "$WORK/bin"
}

# Rewrites plugstack.conf: srun and slurmstepd read it at every step. Each
# cluster has its own saved node topology (slurmd wrote it when it started).
set_plugstack() {
  printf 'required %s store=%s topology_cache=%s run_dir=%s %s\n' "$PLUGIN" "$STORE" "$CLUSTER/node-topology.xml" \
    "$CLUSTER/pin-run" "$*" >"$CLUSTER/plugstack.conf"
}

# Runs a command as the unprivileged test user, in $WORK.
as_user() {
  (cd "$WORK" && runuser -u "$TEST_USER" -- env "SLURM_CONF=$SLURM_CONF" PATH="$PATH" "$@")
}

# $stderr without srun's own lines about waiting for the allocation: a
# step started just after another ended (or after slurmd restarted) may
# queue for a moment, which is Slurm's scheduling, not what a test checks.
srun_said() { grep -Ev '^srun: job [0-9]+ (queued and waiting for resources|has been allocated resources)$' <<<"$stderr" || true; }

# How many jobs slurmctld knows of (finished ones stay for MinJobAge).
job_count() { scontrol -o show jobs 2>/dev/null | grep -c '^JobId=' || true; }

# "CPU-of-thread-0 CPU-of-thread-1 ..." of rank $1 in $output.
thread_cpus() {
  grep "^rank $1 thread " <<<"$output" | sort -k4,4n | awk '{ printf "%s%s", sep, $6; sep = " " }'
}

# The value of variable $2 as rank $1 saw it.
env_of() { grep "^rank $1 env $2=" <<<"$output" | head -1 | cut -d= -f2-; }

# The node is still usable: a step failure must never drain it. Jobs that
# just ended may still be completing (their epilog runs): wait for that,
# for a while, but never accept a drained or down node.
node_is_idle() {
  local state
  for _ in $(seq 1 300); do
    state=$(sinfo -h -o %t | sort -u | tr '\n' ' ')
    [ "$state" = "idle " ] && return 0
    [[ $state =~ ^((comp|mix|alloc|idle)\ )+$ ]] || break
    sleep 0.1
  done
  echo "node state: $state"
  return 1
}

# One line on stderr, "$1: error: " then $2.
expect_one_error_line() {
  local lines
  lines=$(grep -c . <<<"$stderr" || true)
  [ "$lines" -eq 1 ] || { echo "stderr has $lines lines: $stderr"; return 1; }
  [[ "$stderr" == "$1: error: "*"$2"* ]] || { echo "stderr: $stderr"; echo "wanted: $1: error: ...$2"; return 1; }
}

# What of slurm-pin's engine is mapped in the slurmstepd of a step running
# `sleep` (`srun -n1 -c2 OPTIONS... sleep 3`; one file per line, none
# expected: the engine lives in the placing helper, gone before the task
# starts); fails when that step's slurmstepd was not found running its task
# in 30 s (the job may wait for the last one's CPUs).
stepd_engine_maps() {
  as_user srun -J engine-maps -n1 -c2 "$@" sleep 3 &
  local pid="" job i
  for i in $(seq 300); do
    job=$(squeue -h -n engine-maps -o %i | head -1)
    [ -n "$job" ] && pid=$(pgrep -f "slurmstepd: \[$job\.0\]" | head -1) && [ -n "$pid" ] &&
      pgrep -P "$pid" -x sleep >/dev/null && break
    pid=""
    sleep 0.1
  done
  [ -n "$pid" ] || { wait; echo "no slurmstepd of the step running its task" >&2; return 1; }
  grep -oE 'libslurmpin[a-z_]*\.so[.0-9]*' "/proc/$pid/maps" | sort -u || true
  wait
}
