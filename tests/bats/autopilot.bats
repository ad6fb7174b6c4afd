#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The autopilot end to end (docs/autopilot.md), through a real Slurm in the
# production configuration with accounting as sites keep it (slurmdbd and
# MariaDB, started and stopped here like slurmctld): an application whose
# placements really differ on this 2-CPU node (busy_pair: two busy threads
# of four; compact puts the busy pair on one CPU) is learned from its own
# jobs. Jobs get the candidates in balanced blocks, recorded in each job;
# `slurm-pin autopilot status` reads the outcomes from sacct and judges them
# at planned looks; `decide` writes the learned rule, which the policy then
# applies to the next job.

load slurm_helpers

RUNS=31  # the rule's runs per candidate: the protocol's large samples at the last look

write_policy() {
  cat >"$CLUSTER/slurm-pin-policy.lua" <<POLICY
return {
  store = "$STORE",
  autopilot = "$CLUSTER/autopilot",
  rules = {
    { name = "fixed-account", match = { account = "fixed" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "learn-busy", match = { app = "busy_pair" }, explore = { strategies = { "compact" }, runs = $RUNS } },
    { name = "learn-halo", match = { app = "halo" }, action = { profile = "%app" },
      explore = { strategies = { "lpgp" }, runs = 3, record = 1 } },
    { name = "learn-ring", match = { app = "ring" }, action = { profile = "%app" },
      explore = { strategies = { "gplp" }, runs = 3, record = 1 } },
    { name = "learn-wrapped", match = { app = "wrapped" }, action = { profile = "%app" },
      explore = { strategies = { "gplp" }, runs = 3, record = 1 } },
  },
}
POLICY
}

setup_file() {
  export SLURM_PIN_JOB_SUBMIT=1 SLURM_PIN_ACCOUNTING=slurmdbd SLURM_PIN_MEMORY=
  slurm_up production verbose policy
  write_policy
  mkdir -m 755 "$CLUSTER/autopilot"
  gcc -O1 -pthread "$PROGRAMS/busy_pair.c" -o "$WORK/bin/busy_pair"
  # An MPI application (MPICH, launched by srun --mpi=pmi2) whose ranks
  # exchange messages in a ring: the bench's own stencil.
  mpicc.mpich -O1 -fopenmp "$BATS_TEST_DIRNAME/../../bench/workloads/mpi_stencil.c" -o "$WORK/bin/halo"
  cp "$WORK/bin/halo" "$WORK/bin/ring"  # the same program as another application
  chmod a+rx "$WORK/bin/busy_pair" "$WORK/bin/halo" "$WORK/bin/ring"
  # Users have homes, where their recordings and their own store live.
  : >"$CLUSTER/made-homes"
  for u in "$TEST_USER" "$OTHER_USER"; do
    id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/bash "$u"
    home=$(getent passwd "$u" | cut -d: -f6)
    if [ ! -d "$home" ]; then
      install -d -o "$u" -m 755 "$home"
      echo "$home" >>"$CLUSTER/made-homes"
    fi
  done
}
teardown_file() {
  [ -f "${CLUSTER:-/nonexistent}/made-homes" ] && xargs -r rm -rf <"$CLUSTER/made-homes"
  slurm_down
}

OTHER_USER=slurmpin-other
home_of() { getent passwd "$1" | cut -d: -f6; }

admin_comment() { scontrol show job "$1" | sed -n 's/.*AdminComment=\(.*\)$/\1/p' | sed 's/ *$//'; }

# Submits N jobs of busy_pair as the user (the job name and the script's
# srun line name the application), its 4 threads said as OpenMP programs
# say them; their ids on stdout.
submit_jobs() {
  local n=$1 i
  for i in $(seq 1 "$n"); do
    busy_job || return 1
  done
}
busy_job() { as_user env OMP_NUM_THREADS=4 sbatch --parsable -J busy_pair -c2 -o /dev/null "$@" --wrap "srun $WORK/bin/busy_pair 1.0"; }

# Waits until no job is queued or running and sacct has every step.
wait_jobs_done() {
  local i
  for i in $(seq 1 1800); do
    [ -z "$(squeue -h -o %i)" ] && break
    sleep 0.2
  done
  [ -z "$(squeue -h -o %i)" ] || return 1
  for i in $(seq 1 100); do
    [ "$(sacct -a -n -X -s PD,R -o JobID | wc -l)" -eq 0 ] && return 0
    sleep 0.2
  done
  return 1
}

@test "the policy example of docs/autopilot.md is accepted by policy check" {
  sed -n '/^```lua$/,/^```$/p' "$BATS_TEST_DIRNAME/../../docs/autopilot.md" | sed '1d;$d' >"$WORK/example.lua"
  grep -q "explore = " "$WORK/example.lua"
  run "$SLURM_PIN" policy check "$WORK/example.lua"
  [ "$status" -eq 0 ]
  [[ "$output" == *": ok, 2 rules"* ]]
}

@test "jobs of an explored application get the candidates in balanced blocks, recorded in each job and in sacct" {
  run submit_jobs 16
  [ "$status" -eq 0 ]
  jobs=("${lines[@]}")
  [ "${#jobs[@]}" -eq 16 ]
  wait_jobs_done
  order=()
  for j in "${jobs[@]}"; do
    c=$(admin_comment "$j")
    [[ "$c" == "slurm-pin: rule=learn-busy mode=default strategy="*" threads=4 explore=busy_pair" ]]
    s=${c#*strategy=}
    order+=("${s%% *}")
  done
  echo "order: ${order[*]}" >&3
  # Each block of two jobs gives none and compact one job each.
  for b in 0 2 4 6 8 10 12 14; do
    [ "${order[$b]}" != "${order[$((b + 1))]}" ]
  done
  # Not always in the same order.
  firsts=$(for b in 0 2 4 6 8 10 12 14; do echo "${order[$b]}"; done | sort -u | wc -l)
  [ "$firsts" -eq 2 ]
  # The decision is in the accounting, beside each step's elapsed time.
  [ "$(sacct -a -n -X -P -o AdminComment -j "${jobs[0]}")" = "$(admin_comment "${jobs[0]}")" ]
  [[ "$(sacct -a -n -P -o JobName,State -j "${jobs[0]}.0")" == "busy_pair|COMPLETED" ]]
}

@test "a user's own choice keeps its meaning and takes no turn; an enforced rule never explores" {
  run busy_job --pin-strategy=scatter
  [ "$status" -eq 0 ]
  mine=$output
  run busy_job -A fixed
  fixed=$output
  wait_jobs_done
  [[ "$(admin_comment "$mine")" == *"rule=learn-busy"*"applied=no" ]]
  [ "$(admin_comment "$fixed")" = "slurm-pin: rule=fixed-account mode=enforce strategy=compact" ]
  # The block after them is still whole: the next two jobs get one of each.
  run submit_jobs 2
  a=$(admin_comment "${lines[0]}") b=$(admin_comment "${lines[1]}")
  wait_jobs_done
  [[ "$a" == *"explore=busy_pair"* ]]
  [ "${a#*strategy=}" != "${b#*strategy=}" ]
}

@test "autopilot status at an interim look: runs per candidate, verdicts, noise, and the runs still needed" {
  run "$SLURM_PIN" autopilot status
  echo "$output" >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *"busy_pair: step busy_pair, partition debug, 1 node, 1 task, 2 CPUs per task, 4 threads (rule learn-busy)"* ]]
  [[ "$output" == *"look 1 of 4"* ]]
  [[ "$output" =~ none\ +9\  ]]
  [[ "$output" =~ compact\ +9\  ]]
  [[ "$output" == *"noise: RV of none"* ]]
  [[ "$output" == *"next look at 16 runs each: still needed none 7, compact 7"* ]]
  # Nothing decided yet: decide writes a learned file that changes nothing.
  run "$SLURM_PIN" autopilot decide
  [ "$status" -eq 0 ]
  "$SLURM_PIN" policy check "$CLUSTER/slurm-pin-policy.lua"
  ! grep -q "name =" "$CLUSTER/autopilot/learned.lua"
}

@test "at the last look the protocol decides; decide writes the rule, and the next job is placed by it" {
  run submit_jobs $((2 * (RUNS - 9)))
  [ "$status" -eq 0 ]
  wait_jobs_done
  run "$SLURM_PIN" autopilot status
  echo "$output" >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *"look 4 of 4"* ]]
  [[ "$output" =~ compact\ +$RUNS\ .*slowdown ]]
  [[ "$output" == *"decided: keep none: no candidate was significantly faster than none by look 4 of 4"* ]]
  run "$SLURM_PIN" autopilot decide
  [ "$status" -eq 0 ]
  cat "$CLUSTER/autopilot/learned.lua" >&3
  grep -q '{ name = "autopilot-busy_pair-debug-N1-n1-c2-t4", learned_by = "learn-busy",' "$CLUSTER/autopilot/learned.lua"
  grep -q 'match = { app = "busy_pair", partition = "debug", nodes = { min = 1, max = 1 }, threads = { min = 4, max = 4 } },' "$CLUSTER/autopilot/learned.lua"
  grep -q 'action = { strategy = "none" } },' "$CLUSTER/autopilot/learned.lua"
  run "$SLURM_PIN" policy check "$CLUSTER/slurm-pin-policy.lua"
  [ "$status" -eq 0 ]
  [[ "$output" == *"1 of the rules learned by the autopilot"* ]]
  # slurmctld looks at the policy (and the learned file) every 10 s.
  sleep 11
  run busy_job
  job=$output
  wait_jobs_done
  [ "$(admin_comment "$job")" = "slurm-pin: rule=autopilot-busy_pair-debug-N1-n1-c2-t4 mode=default strategy=none threads=4" ]
}

# ---- MPI traffic on the first jobs (explore.record) -------------------------------

# Waits until the accounting's window the autopilot reads (sacct -S ...
# without -j) holds step $1: slurmdbd lists a job that just ended by id
# before it lists it in a time window.
wait_accounted() {
  local i
  for i in $(seq 1 100); do
    sacct -a -n -P -S now-90days -E now+1days -o JobID | grep -qx "$1" && return 0
    sleep 0.2
  done
  return 1
}

# A job of the MPI application halo: two ranks passing 512 KiB around a ring, 200 times.
halo_job() {
  local user=$1
  shift
  (cd "$WORK" && runuser -u "$user" -- env "SLURM_CONF=$SLURM_CONF" PATH="$PATH" \
    sbatch --parsable -J halo -n2 -c1 -o "$WORK/halo.%j.out" "$@" --wrap "srun --mpi=pmi2 $WORK/bin/halo ring 256 200")
}

# Sets rows to the directory recording step $1.0 wrote into the test
# user's home, and fails unless both ranks' rows are there and job output
# $3 has rule $2's verbose line naming it.
rows_recorded() {
  rows=$(home_of "$TEST_USER")/.local/share/slurm-pin/recorded/$1.0
  [ -f "$rows/rank.0" ] || { echo "no $rows/rank.0"; return 1; }
  [ -f "$rows/rank.1" ] || { echo "no $rows/rank.1"; return 1; }
  grep -q "the site policy's rule $2 records this job's MPI traffic (mpich) into $rows" "$3"
}

@test "the first job of an MPI application records its ranks' traffic into its user's own directory, unpinned" {
  run halo_job "$TEST_USER"
  [ "$status" -eq 0 ]
  job=$output
  wait_jobs_done
  cat "$WORK/halo.$job.out" >&3
  [ "$(admin_comment "$job")" = "slurm-pin: rule=learn-halo mode=default strategy=none tasks=2 threads=1 explore=halo record=halo" ]
  [[ "$(sacct -a -n -P -o State -j "$job.0")" == COMPLETED ]]
  wait_accounted "$job.0"
  rows_recorded "$job" learn-halo "$WORK/halo.$job.out"
  [ "$(stat -c %U "$rows/rank.0" "$rows")" = "$TEST_USER"$'\n'"$TEST_USER" ]
  # A recording job runs as Slurm placed it: no slurm-pin binding line.
  ! grep -q "strategy none, " "$WORK/halo.$job.out"
}

@test "ranks started by MPICH's mpiexec record too: the recorder goes into hydra's proxies, whose ranks inherit it" {
  run --separate-stderr as_user sbatch --parsable -J ring -n2 -c1 -o "$WORK/ring.%j.out" \
    --wrap "mpiexec.hydra -n 2 $WORK/bin/ring ring 128 100"
  [ "$status" -eq 0 ]
  job=$output
  wait_jobs_done
  cat "$WORK/ring.$job.out" >&3
  [[ "$(admin_comment "$job")" == *" explore=ring record=ring" ]]
  [[ "$(sacct -a -n -P -o State -j "$job.0")" == COMPLETED ]]
  rows_recorded "$job" learn-ring "$WORK/ring.$job.out"
  wait_accounted "$job.0"
}

@test "a recording job whose ranks start through a script runs as it is; the verbose line and status say nothing was recorded" {
  printf '#!/bin/sh\nexec %s "$@"\n' "$WORK/bin/halo" >"$WORK/bin/wrapped.sh"
  chmod 755 "$WORK/bin/wrapped.sh"
  run --separate-stderr as_user sbatch --parsable -J wrapped -n2 -c1 -o "$WORK/wrapped.%j.out" \
    --wrap "srun --mpi=pmi2 $WORK/bin/wrapped.sh ring 64 10"
  [ "$status" -eq 0 ]
  job=$output
  wait_jobs_done
  cat "$WORK/wrapped.$job.out" >&3
  [[ "$(admin_comment "$job")" == *" explore=wrapped record=wrapped" ]]
  [[ "$(sacct -a -n -P -o State -j "$job.0")" == COMPLETED ]]
  grep -q "^checksum:" "$WORK/wrapped.$job.out"
  [ "$(grep -c "the site policy's rule learn-wrapped records this job's MPI traffic, but $WORK/bin/wrapped.sh is linked with no MPI (start the ranks with srun" "$WORK/wrapped.$job.out")" -eq 1 ]
  [ ! -e "$(home_of "$TEST_USER")/.local/share/slurm-pin/recorded/$job.0" ]
  wait_accounted "$job.0"
  run "$SLURM_PIN" autopilot status
  [[ "$output" == *"wrapped: MPI traffic (rule learn-wrapped): nothing recorded by slurmpin-test's $job.0: no rank wrote its row"* ]]
}

@test "decide makes the rows a profile in that user's own store, as that user, and lists it; status shows it" {
  run "$SLURM_PIN" autopilot decide
  echo "$output" >&3
  [ "$status" -eq 0 ]
  home=$(home_of "$TEST_USER")
  profile=$home/.local/share/slurm-pin/profiles/halo/t1.v1.profile
  [ -f "$profile" ]
  [ "$(stat -c %U "$profile")" = "$TEST_USER" ]
  grep -q '^ranks 2$' "$profile"
  [ -z "$(ls "$home/.local/share/slurm-pin/recorded")" ]  # the rows, once read
  grep -q '{ rule = "learn-halo", app = "halo", user = "slurmpin-test", threads = 1, job = [0-9]*, ranks = 2 },' \
    "$CLUSTER/autopilot/learned.lua"
  # The ranks mpiexec started: a profile of two ranks too.
  grep -q '^ranks 2$' "$home/.local/share/slurm-pin/profiles/ring/t1.v1.profile"
  grep -q '{ rule = "learn-ring", app = "ring", user = "slurmpin-test", threads = 1, job = [0-9]*, ranks = 2 },' \
    "$CLUSTER/autopilot/learned.lua"
  "$SLURM_PIN" policy check "$CLUSTER/slurm-pin-policy.lua"
  run "$SLURM_PIN" autopilot status
  [[ "$output" == *"halo: MPI traffic (rule learn-halo): recorded: slurmpin-test's own store has halo at 1 thread"* ]]
}

@test "the recording user's next jobs get lpgp by their own traffic profile; another user's never do" {
  sleep 11  # slurmctld looks at the policy and the learned file every 10 s
  jobs=()
  for i in 1 2 3 4; do
    run halo_job "$TEST_USER"
    [ "$status" -eq 0 ]
    jobs+=("$output")
  done
  others=()
  for i in 1 2 3 4; do
    run halo_job "$OTHER_USER" --hold
    others+=("$output")
  done
  for j in "${others[@]}"; do
    [ "$(admin_comment "$j")" = "slurm-pin: rule=learn-halo mode=default strategy=none tasks=2 threads=1 explore=halo" ]
  done
  scancel "${others[@]}"
  wait_jobs_done
  lpgp=0
  for j in "${jobs[@]}"; do
    c=$(admin_comment "$j")
    [[ "$(sacct -a -n -P -o State -j "$j.0")" == COMPLETED ]]
    if [[ "$c" == *strategy=lpgp* ]]; then
      lpgp=$((lpgp + 1))
      [ "$c" = "slurm-pin: rule=learn-halo mode=default strategy=lpgp profile=halo tasks=2 threads=1 store=user explore=halo" ]
      cat "$WORK/halo.$j.out" >&3
      grep -q "strategy lpgp" "$WORK/halo.$j.out"
    else
      [ "$c" = "slurm-pin: rule=learn-halo mode=default strategy=none tasks=2 threads=1 explore=halo" ]
    fi
  done
  [ "$lpgp" -eq 2 ]  # two blocks of none and lpgp
}

@test "promote puts the user's profile in the site store: then every user's jobs get lpgp from it" {
  run "$SLURM_PIN" autopilot promote halo --user "$TEST_USER"
  echo "$output" >&3
  [ "$status" -eq 0 ]
  [ -f "$STORE/halo/t1.v1.profile" ]
  [ "$(stat -c %U "$STORE/halo/t1.v1.profile")" = root ]
  sleep 11
  seen=()
  for i in 1 2; do
    run halo_job "$OTHER_USER" --hold
    seen+=("$(admin_comment "$output")")
    scancel "$output"
  done
  printf '%s\n' "${seen[@]}" >&3
  [[ "${seen[*]}" == *"strategy=lpgp profile=halo tasks=2 threads=1 explore=halo"* ]]
  [[ "${seen[*]}" != *"store=user"* ]]
  run "$SLURM_PIN" autopilot promote halo --user "$OTHER_USER"
  [ "$status" -ne 0 ]
  [[ "$output" == *"slurmpin-other's own store has no profile of halo"* ]]
}

@test "a candidate whose profile is gone fails that job with one line naming it; it never runs as another candidate" {
  "$SLURM_PIN" profiles rm halo@1 --threads 1 --store "$STORE"
  runuser -u "$TEST_USER" -- rm -r "$(home_of "$TEST_USER")/.local/share/slurm-pin/profiles/halo"
  sleep 11
  jobs=()
  for i in 1 2; do
    run halo_job "$TEST_USER"
    jobs+=("$output")
  done
  wait_jobs_done
  for j in "${jobs[@]}"; do
    c=$(admin_comment "$j")
    if [[ "$c" == *"strategy=lpgp profile=halo tasks=2 threads=1 store=user"* ]]; then
      cat "$WORK/halo.$j.out" >&3
      grep -q "vm: slurm-pin: the site policy's rule learn-halo gave this job the candidate lpgp with profile halo of your own store, which cannot place it" "$WORK/halo.$j.out"
      [[ "$(sacct -a -n -P -o State -j "$j.0")" != COMPLETED ]]
      ! grep -q "^time:" "$WORK/halo.$j.out" || false  # the program never ran
      return 0
    fi
  done
  false
}

@test "a user's planted link among their recordings is refused as that user: root reads and removes nothing through it" {
  home=$(home_of "$TEST_USER")
  runuser -u "$TEST_USER" -- mkdir -p "$home/.local/share/slurm-pin/recorded"
  runuser -u "$TEST_USER" -- ln -sfn /etc "$home/.local/share/slurm-pin/recorded/999.0"
  sep=$'\x1f'
  {
    printf '%s\n' "999${sep}halo${sep}$TEST_USER${sep}acct${sep}debug${sep}COMPLETED${sep}3${sep}1${sep}${sep}2${sep}sbatch${sep}slurm-pin: rule=learn-halo mode=default strategy=none tasks=2 threads=3 explore=halo record=halo"
    printf '%s\n' "999.0${sep}halo${sep}${sep}${sep}${sep}COMPLETED${sep}3${sep}1${sep}2${sep}2${sep}srun --mpi=pmi2 halo${sep}"
  } >"$WORK/planted.sacct"
  before=$(ls /etc | wc -l)
  run "$SLURM_PIN" autopilot decide --sacct-file "$WORK/planted.sacct"
  echo "$output" >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *"halo: the rows of step 999.0: "*"recorded/999.0: "* ]]
  [ "$(ls /etc | wc -l)" -eq "$before" ]
  [ ! -e "$home/.local/share/slurm-pin/profiles/halo/t3.v1.profile" ]
  ! grep -q 'threads = 3' "$CLUSTER/autopilot/learned.lua" || false
  rm "$home/.local/share/slurm-pin/recorded/999.0"
}
