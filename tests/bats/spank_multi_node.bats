#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Multi-node steps on a two-node Slurm on this one host (two slurmd, n1 and
# n2, ../shared/notes/multi-node.md): each node places its own tasks (local
# task ids), block and cyclic distributions, placement files, heterogeneous
# steps with options per component, and a profiling job whose node is lost.
# Both nodes are this machine (2 CPUs each): bindings are real.

load slurm_helpers

setup_file() {
  # A lost node is noticed within seconds, not Slurm's default 5 minutes;
  # heterogeneous jobs start at the backfill scheduler's next pass: every
  # second, not every 30.
  export SLURM_PIN_NODES="n1 n2" SLURM_PIN_SLURMD_TIMEOUT=5
  export SLURM_PIN_EXTRA_CONF="SchedulerParameters=bf_interval=1"
  slurm_up task/none
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

omp() { echo "$WORK/bin/omp_gomp"; }

# The places the engine gives local task $1 of $2 on a node whose step has
# CPUs $3, for strategy $4 and $5 threads per task (more options after).
engine_places() {
  local task=$1 tasks=$2 cpus=$3 strategy=$4 threads=$5
  shift 5
  "$SLURM_PIN" place --restrict "$cpus" --tasks "$tasks" --threads "$threads" --strategy "$strategy" "$@" \
    --format omp | sed -n "$((task + 1))p"
}

# Checks, for every rank of $output, its node and local id against
# distribution $1 (block or cyclic) of $2 ranks over 2 nodes, and its places
# and threads against the engine's for strategy $3 with $4 threads per task.
check_ranks() {
  local dist=$1 ranks=$2 strategy=$3 threads=$4
  shift 4
  local per_node=$((ranks / 2)) r node local want_node want_local places
  for r in $(seq 0 $((ranks - 1))); do
    node=$(env_of "$r" SLURMD_NODENAME)
    local=$(env_of "$r" SLURM_LOCALID)
    if [ "$dist" = block ]; then
      want_node=n$((r / per_node + 1)) want_local=$((r % per_node))
    else
      want_node=n$((r % 2 + 1)) want_local=$((r / 2))
    fi
    [ "$node" = "$want_node" ] && [ "$local" = "$want_local" ] ||
      { echo "rank $r on $node as local task $local, wanted $want_node task $want_local"; return 1; }
    places=$(engine_places "$local" "$per_node" 0-1 "$strategy" "$threads" "$@")
    [ "$(env_of "$r" OMP_PLACES)" = "$places" ] ||
      { echo "$strategy rank $r: OMP_PLACES $(env_of "$r" OMP_PLACES), engine $places"; return 1; }
    # Every thread runs where its place says ("{1},{0}": thread 0 on 1).
    [ "$(thread_cpus "$r")" = "$(tr -d '{}' <<<"$places" | tr ',' ' ')" ] ||
      { echo "$strategy rank $r: threads on $(thread_cpus "$r"), places $places"; return 1; }
  done
}

@test "-N2: every strategy places each node's tasks by their local ids, block and cyclic" {
  for s in compact scatter random; do
    for dist in block cyclic; do
      run --separate-stderr as_user srun -N2 -n4 -c1 -m "$dist" --pin-strategy="$s" "$(omp)"
      [ "$status" -eq 0 ] || { echo "$s $dist: $stderr"; false; }
      check_ranks "$dist" 4 "$s" 1
    done
  done
  # Profile-guided: one task of two threads per node.
  for s in lp-compact lp-scatter gp lpgp gplp; do
    run --separate-stderr as_user srun -N2 -n2 -c2 --pin-strategy="$s" --pin-profile="$FIXTURES/profiles/pairs2.profile" \
      "$(omp)"
    [ "$status" -eq 0 ] || { echo "$s: $stderr"; false; }
    check_ranks block 2 "$s" 2 --profile "$FIXTURES/profiles/pairs2.profile"
  done
}

@test "-N2 verbose: one line per task, naming its node, local task and global rank" {
  run --separate-stderr as_user srun -N2 -n4 -c1 -m cyclic --pin-strategy=compact --pin-verbose true
  [ "$status" -eq 0 ]
  [ "$(grep -c '^slurm-pin: ' <<<"$stderr")" -eq 4 ]
  for line in "n1 task 0 (rank 0)" "n2 task 0 (rank 1)" "n1 task 1 (rank 2)" "n2 task 1 (rank 3)"; do
    grep -q "^slurm-pin: $line: strategy compact" <<<"$stderr" || { echo "no '$line' in: $stderr"; false; }
  done
}

@test "-N2 placement file: task ids are local to each node" {
  printf 'slurm-pin-placement 1\ntask 0: 1\ntask 1: 0\n' >"$WORK/swap.placement"
  chmod 644 "$WORK/swap.placement"
  run --separate-stderr as_user srun -N2 -n4 -c1 -m cyclic --pin-strategy="file:$WORK/swap.placement" "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  # Cyclic: ranks 0 and 2 are tasks 0 and 1 of n1, ranks 1 and 3 of n2.
  [ "$(thread_cpus 0)" = 1 ]
  [ "$(thread_cpus 1)" = 1 ]
  [ "$(thread_cpus 2)" = 0 ] && [ "$(thread_cpus 3)" = 0 ] || { echo "$output"; false; }
  # A file for another number of tasks per node is an error on every node,
  # and nothing runs.
  printf 'slurm-pin-placement 1\ntask 0: 1\n' >"$WORK/one.placement"
  chmod 644 "$WORK/one.placement"
  run --separate-stderr as_user srun -N2 -n4 -c1 --pin-strategy="file:$WORK/one.placement" "$(omp)"
  [ "$status" -ne 0 ]
  ! grep -q '^rank ' <<<"$output" || false
  grep -q 'error: n1: slurm-pin: .*has 1 task but the step runs 2 tasks' <<<"$stderr" || { echo "$stderr"; false; }
  grep -q 'error: n2: slurm-pin: .*has 1 task but the step runs 2 tasks' <<<"$stderr" || { echo "$stderr"; false; }
}

@test "heterogeneous step: each component has its own --pin-* options, verbose shows the global rank" {
  run --separate-stderr as_user srun -n1 -c2 --pin-strategy=compact --pin-verbose "$(omp)" \
    : -n1 -c2 --pin-strategy=scatter --pin-mem=local --pin-verbose "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ] && [ "$(env_of 1 SLURM_PIN_STRATEGY)" = scatter ] ||
    { echo "$output"; false; }
  grep -q '^rank 0 mempolicy default$' <<<"$output" && grep -q '^rank 1 mempolicy local$' <<<"$output" ||
    { echo "$output"; false; }
  grep -q 'task 0 (rank 0): strategy compact' <<<"$stderr" && grep -q 'task 0 (rank 1): strategy scatter' <<<"$stderr" ||
    { echo "$stderr"; false; }
  # The options travel in SLURM_PIN_OPTIONS_HET_GROUP_*; the program does not see them.
  ! grep -q 'SLURM_PIN_OPTIONS' <<<"$output" || false
  # Flags too: a dry run in component 0 only; nothing chosen in component 1
  # is the site's default (none here): not bound, not described.
  run --separate-stderr as_user srun -n1 -c2 --pin-strategy=scatter --pin-dryrun "$(omp)" : -n1 -c2 "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  grep -q 'slurm-pin: dry run: .* (rank 0): strategy scatter' <<<"$stderr" || { echo "$stderr"; false; }
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = "" ] && [ "$(env_of 1 SLURM_PIN_STRATEGY)" = "" ] || { echo "$output"; false; }
  [ "$(grep -c '^slurm-pin: ' <<<"$stderr")" -eq 1 ] || { echo "$stderr"; false; }
  # --cpu-bind is per component, and so is the warning about replacing it.
  run --separate-stderr as_user srun -n1 -c2 --cpu-bind=map_cpu:1 true : -n1 -c2 --pin-strategy=compact true
  [ "$status" -eq 0 ]
  ! grep -q 'replaces --cpu-bind' <<<"$stderr" || { echo "$stderr"; false; }
  run --separate-stderr as_user srun -n1 -c2 --pin-strategy=compact true : -n1 -c2 --cpu-bind=map_cpu:1 true
  [ "$status" -eq 0 ]
  ! grep -q 'replaces --cpu-bind' <<<"$stderr" || { echo "$stderr"; false; }
}

@test "heterogeneous step: an error in one component's options stops srun before anything runs" {
  run --separate-stderr as_user srun -n1 --pin-strategy=compact true : -n1 --pin-strategy=lpgp true
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--pin-strategy=lpgp needs a sharing profile"
  # srun writes every component's variable: one set beforehand is replaced,
  # so the options are those given on the command line.
  run --separate-stderr as_user env SLURM_PIN_OPTIONS_HET_GROUP_1=strategy=scatter \
    srun -n1 -c2 "$(omp)" : -n1 -c2 "$(omp)"
  [ "$status" -eq 0 ]
  [ "$(env_of 1 SLURM_PIN_STRATEGY)" = "" ] || { echo "$output"; false; }
}

@test "a component's options the user set (srun --het-group inside an allocation) are checked on the node" {
  # One srun for one component exports nothing, so a variable the user set
  # reaches slurmstepd: it is parsed, checked and held to the site's rules.
  set_plugstack allowed=none,compact
  run --separate-stderr as_user env SLURM_PIN_OPTIONS_HET_GROUP_0='strategy=%zz' \
    salloc -Q -n1 -c2 : -n1 -c2 srun --het-group=0 "$(omp)"
  [ "$status" -ne 0 ]
  ! grep -q '^rank .* thread' <<<"$output" || false
  grep -q "slurm-pin: SLURM_PIN_OPTIONS_HET_GROUP_0 is malformed" <<<"$stderr" || { echo "$stderr"; false; }
  run --separate-stderr as_user env SLURM_PIN_OPTIONS_HET_GROUP_0='strategy=scatter' \
    salloc -Q -n1 -c2 : -n1 -c2 srun --het-group=0 "$(omp)"
  [ "$status" -ne 0 ]
  ! grep -q '^rank .* thread' <<<"$output" || false
  grep -q "strategy 'scatter' is not allowed on this cluster" <<<"$stderr" || { echo "$stderr"; false; }
  run --separate-stderr as_user env SLURM_PIN_OPTIONS_HET_GROUP_0='strategy=compact smt=0' \
    salloc -Q -n1 -c2 : -n1 -c2 srun --het-group=0 "$(omp)"
  [ "$status" -ne 0 ]
  grep -q "SLURM_PIN_OPTIONS_HET_GROUP_0 is malformed" <<<"$stderr" || { echo "$stderr"; false; }
  # A well-formed, allowed value is the user's own choice, as --pin-strategy.
  run --separate-stderr as_user env SLURM_PIN_OPTIONS_HET_GROUP_0='strategy=compact' \
    salloc -Q -n1 -c2 : -n1 -c2 srun --het-group=0 "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
}

# A long two-thread program to profile.
build_spinner() {
  cat >"$WORK/spin.c" <<'C'
#include <pthread.h>
static volatile long x[64];
static void *work(void *a) { for (long i = 0; i < 4000000000L; ++i) x[(long)a * 8]++; return 0; }
int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; ++i) pthread_create(&t[i], 0, work, (void *)i);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  return 0;
}
C
  gcc -O1 -pthread "$WORK/spin.c" -o "$WORK/bin/spin"
  chmod a+rx "$WORK/bin/spin"
}

# Node $1 fails while it runs job $2: its slurmd, the job's step daemons and
# their programs stop at once (SIGSTOP, so no daemon reports a death to srun),
# then die.
lose_node() {
  local pids
  pids="$(cat "$CLUSTER/run/slurmd-$1.pid") $(pgrep -f "slurmstepd: \[$2\.")"
  pids="$pids $(for p in $pids; do pgrep -P "$p"; done)"
  kill -STOP $pids 2>/dev/null || true
  kill -9 $pids 2>/dev/null || true
}

@test "a profiling job whose node is lost: a clear error, no profile, no partial file, node back" {
  build_spinner
  as_user "$SLURM_PIN" profile --app lost --threads 2 --output "$WORK/lost.profile" --srun-arg=-w --srun-arg=n2 \
    -- "$WORK/bin/spin" >"$WORK/profile.out" 2>&1 &
  local profiler=$! job=""
  for _ in $(seq 1 300); do  # until the step runs on n2
    job=$(squeue -h -n profile:lost -o %A | head -1)
    [ -n "$job" ] && pgrep -f "slurmstepd: \[$job\.0\]" >/dev/null && break
    sleep 0.1
  done
  [ -n "$job" ] || { cat "$WORK/profile.out"; false; }
  sleep 1
  lose_node n2 "$job"
  local rc=0
  wait "$profiler" || rc=$?
  cat "$WORK/profile.out"
  [ "$rc" -ne 0 ]
  grep -q 'Node failure on n2' "$WORK/profile.out"
  grep -q '^slurm-pin: error: .*the profiling run ended without writing its results' "$WORK/profile.out"
  # No profile, no work directory left behind.
  [ ! -e "$WORK/lost.profile" ]
  [ -z "$(ls -a "$WORK" | grep '^\.slurm-pin-profile\.')" ] || { ls -a "$WORK"; false; }
  # The node comes back, and n2 runs steps again.
  "$LOCAL_CLUSTER" start-node "$CLUSTER" n2
  run as_user srun -w n2 --pin-strategy=compact "$(omp)"
  [ "$status" -eq 0 ]
  [ "$(env_of 0 SLURMD_NODENAME)" = n2 ]
}

@test "ranks across nodes by their traffic: slurm-pin place's hostfile in a batch script, as docs/spank.md shows" {
  # Ranks 0-2 and 1-3 exchange most: block order would split both pairs.
  printf '0 1 100 1\n1 0 1 100\n100 1 0 1\n1 100 1 0\n' >"$WORK/ranks.txt"
  cat >"$WORK/traffic.sh" <<SCRIPT
#!/bin/bash
hosts=\$(mktemp)
"$SLURM_PIN" place --nodes "\$(scontrol show hostnames | paste -sd,)" --task-matrix "$WORK/ranks.txt" \
  --format hostfile >"\$hosts" || exit 1
SLURM_HOSTFILE=\$hosts srun --distribution=arbitrary --pin-strategy=compact "$(omp)"
SCRIPT
  chmod 755 "$WORK/traffic.sh"
  chmod a+r "$WORK/ranks.txt"
  run --separate-stderr as_user salloc -Q -N2 -n4 -c1 "$WORK/traffic.sh"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(env_of 0 SLURMD_NODENAME)" = "$(env_of 2 SLURMD_NODENAME)" ]
  [ "$(env_of 1 SLURMD_NODENAME)" = "$(env_of 3 SLURMD_NODENAME)" ]
  [ "$(env_of 0 SLURMD_NODENAME)" != "$(env_of 1 SLURMD_NODENAME)" ]
  # Each node's two ranks placed by the plugin, each on its own CPU.
  for r in 0 1 2 3; do [ -n "$(env_of "$r" OMP_PLACES)" ] || { echo "rank $r unplaced: $output"; false; }; done
  [ "$(env_of 0 OMP_PLACES)" != "$(env_of 2 OMP_PLACES)" ]
}
