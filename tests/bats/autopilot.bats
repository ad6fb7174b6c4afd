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
  chmod a+rx "$WORK/bin/busy_pair"
}
teardown_file() { slurm_down; }

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
