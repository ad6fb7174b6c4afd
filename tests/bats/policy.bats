#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The site policy through a real slurmctld (job_submit/lua, Lua 5.1): sbatch
# and srun jobs of a profiled application get the profile's strategy, others
# the partition default, a user's choice beats a default rule and loses to an
# enforced one, and a broken policy never blocks submission.

load mpi_helpers
load evaluate_helpers

write_policy() {
  cat >"$CLUSTER/slurm-pin-policy.lua" <<POLICY
return {
  store = "$STORE",
  partitions = { ["*"] = { strategy = "scatter" } },
  rules = {
    { name = "fixed-account", match = { account = "fixed" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "strict-profiled", match = { account = "strict" },
      action = { strategy = "lpgp", profile = "pairs2", mode = "enforce" } },
    { name = "fixed-profile", match = { app = "fixedapp" }, action = { strategy = "lpgp", profile = "pairs2" } },
    { name = "profiled", match = { has_profile = true }, action = { strategy = "lpgp", profile = "%app" } },
  },
}
POLICY
}

setup_file() {
  export SLURM_PIN_JOB_SUBMIT=1 SLURM_PIN_POLICY_RECHECK=0
  slurm_up task/none
  write_policy
  "$SLURM_PIN" profiles import "$FIXTURES/profiles/pairs2.profile" --app pairs2 --store "$STORE" >/dev/null
  # An application called pairs2: the OpenMP reporter under that name.
  cp "$WORK/bin/omp_gomp" "$WORK/bin/pairs2"
  build_mpi_programs
  cp "$WORK/bin/report_openmpi" "$WORK/bin/fixedapp"  # an MPI application the rule fixed-profile names
}
teardown_file() { slurm_down; }
setup() { set_plugstack verbose policy; write_policy; }

admin_comment() { scontrol show job "$1" | sed -n 's/.*AdminComment=\(.*\)$/\1/p' | sed 's/ *$//'; }

@test "an srun job of a profiled application gets the profile's strategy, and the job records why" {
  run --separate-stderr as_user srun -J pairs2 -c2 "$WORK/bin/pairs2"
  [ "$status" -eq 0 ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = lpgp ]
  [ "$(thread_cpus 0)" = "0 1" ]
  [[ "$stderr" == *"strategy lpgp (policy rule profiled), 2 threads"* ]]
  job=$(squeue -h -t all -n pairs2 -o %i | sort -n | tail -1)
  [ "$(admin_comment "$job")" = "slurm-pin: rule=profiled mode=default strategy=lpgp profile=pairs2" ]
  grep -q "slurm-pin: job 'pairs2' of '$TEST_USER': rule profiled applied" "$CLUSTER/log/slurmctld.log"
}

@test "a batch job gets it too, for the application its script launches" {
  run as_user sbatch --wait -c2 -o "$WORK/batch.out" --wrap "srun $WORK/bin/pairs2"
  [ "$status" -eq 0 ]
  output=$(cat "$WORK/batch.out")
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = lpgp ]
  [ "$(env_of 0 OMP_PLACES)" = "{0},{1}" ]
  job=$(squeue -h -t all -n wrap -o %i | sort -n | tail -1)
  [[ "$(admin_comment "$job")" == "slurm-pin: rule=profiled mode=default strategy=lpgp profile=pairs2" ]]
}

@test "a default rule's profile that does not fit the step yields, naming the rule; an enforced one fails the step" {
  # The store has pairs2 for 2 threads only; this step runs 1.
  run --separate-stderr as_user srun -J fixedapp -c1 "$WORK/bin/pairs2"
  [ "$status" -eq 0 ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
  [ "$(thread_cpus 0)" = "0" ]
  [[ "$stderr" == *"note: policy rule fixed-profile: profile pairs2 does not fit this step ("*"): placed compact without it"* ]]
  # The same rule on a step it fits: applied.
  run --separate-stderr as_user srun -J fixedapp -c2 "$WORK/bin/pairs2"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = lpgp ]
  run --separate-stderr as_user srun -A strict -J pairs2 -c1 "$WORK/bin/pairs2"
  [ "$status" -ne 0 ]
  [[ "$output" != *"thread"* ]]
  [[ "$stderr" == *"slurm-pin: the site policy's enforced rule strict-profiled cannot apply to this step: "* ]]
  node_is_idle
}

@test "ranks mpirun starts: a default rule's profile that does not fit yields, with a note; an enforced one ends them" {
  # pairs2 is a 2-thread profile; these ranks run one thread each.
  batch "export OMP_NUM_THREADS=1
mpirun.openmpi -np 2 $WORK/bin/fixedapp" -n2 -c1 --pin-verbose
  [ "$(rank_cpus 0)" = 0 ]
  [ "$(rank_cpus 1)" = 1 ]
  [ "$(rank_env 0 SLURM_PIN_STRATEGY)" = compact ]
  grep -q "rank 0 (local 0 of 2, started by batch script): note: policy rule fixed-profile: profile pairs2 does not fit this step (.*): placed compact without it" <<<"$output"
  ! grep -q "cannot be placed" <<<"$output" || false
  stderr=$output claims_are_real
  # Under an enforced rule whose profile cannot apply, no rank runs: each
  # says so in one line naming the rule, and mpirun fails the job.
  printf '#!/bin/bash\nexport %s\nexport OMP_NUM_THREADS=1\nmpirun.openmpi -np 2 %s\n' "$OMPI_TRANSPORT" \
    "$WORK/bin/fixedapp" >"$WORK/strict.sh"
  chmod 755 "$WORK/strict.sh"
  run as_user timeout 120 sbatch --wait -A strict -n2 -c1 -o "$WORK/strict.out" "$WORK/strict.sh"
  [ "$status" -ne 0 ]
  output=$(cat "$WORK/strict.out")
  # Each rank that gets that far says so; the launcher may end the others
  # first (Open MPI 5 does).
  refused=$(grep -c "error: .* rank [01] (local [01] of 2, started by batch script): the site policy's enforced rule strict-profiled cannot apply to this rank: " <<<"$output" || true)
  [ "$refused" -ge 1 ] && [ "$refused" -le 2 ] || { echo "$output"; false; }
  ! grep -q "^rank [01] node" <<<"$output" || false
  node_is_idle
}

@test "a policy file without store uses the site's: the store= of the plugstack line" {
  sed -i '/^  store = /d' "$CLUSTER/slurm-pin-policy.lua"
  run as_user srun -J pairs2 -c2 "$WORK/bin/pairs2"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = lpgp ]  # has_profile found pairs2 in the plugstack line's store
  job=$(squeue -h -t all -n pairs2 -o %i | sort -n | tail -1)
  [[ "$(admin_comment "$job")" == *"rule=profiled"* ]]
  run "$SLURM_PIN" policy explain --policy "$CLUSTER/slurm-pin-policy.lua" --job-name pairs2 --threads 2
  [[ "$output" == *"store index:  $STORE"* ]]
}

@test "an unknown application gets the partition default" {
  run as_user srun -J unknown -c2 "$WORK/bin/omp_gomp"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = scatter ]
  job=$(squeue -h -t all -n unknown -o %i | sort -n | tail -1)
  [ "$(admin_comment "$job")" = "slurm-pin: rule=partition:* mode=default strategy=scatter" ]
}

@test "a step the policy places: its slurmstepd reads the decision without loading the engine" {
  # The decision names a strategy (here the partition's scatter), whose
  # value slurmstepd checks as it reads it: in plain C (slurm_pin_options.h).
  mapped=$(stepd_engine_maps)
  [ -z "$mapped" ] || { echo "mapped in slurmstepd: $mapped"; false; }
  job=$(squeue -h -t all -n engine-maps -o %i | sort -n | tail -1)
  [ "$(admin_comment "$job")" = "slurm-pin: rule=partition:* mode=default strategy=scatter" ]
}

@test "a user's explicit --pin-strategy wins over a default rule" {
  run as_user srun -J pairs2 -c2 --pin-strategy=compact "$WORK/bin/pairs2"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
  job=$(squeue -h -t all -n pairs2 -o %i | sort -n | tail -1)
  [[ "$(admin_comment "$job")" == *"rule=profiled"*"applied=no" ]]
  run as_user sbatch --wait -c2 --pin-strategy=compact -o "$WORK/batch2.out" --wrap "srun $WORK/bin/pairs2"
  output=$(cat "$WORK/batch2.out")
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
}

@test "an enforced rule wins over the user's choice, and the user is told at submission" {
  run --separate-stderr as_user srun -A fixed -J pairs2 -c2 --pin-strategy=scatter "$WORK/bin/pairs2"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
  [[ "$stderr" == *"slurm-pin: the site policy's rule fixed-account is enforced for this job: --pin-strategy='scatter' becomes 'compact'"* ]]
  run as_user sbatch --wait -A fixed -c2 --pin-strategy=scatter -o "$WORK/batch3.out" --wrap "srun $WORK/bin/pairs2"
  output=$(cat "$WORK/batch3.out")
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
}

@test "an explicit --cpu-bind: a default rule yields to it; an enforced rule refuses it at srun, in one line" {
  run --separate-stderr as_user srun -J pairs2 -c2 --cpu-bind=map_cpu:1 --pin-verbose "$WORK/bin/pairs2"
  [ "$status" -eq 0 ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" != lpgp ]
  [[ "$stderr" == *"--cpu-bind=map_cpu:1 is this step's binding: the site's default placement does not apply"* ]]
  # This srun is refused after its job exists: wait until the last job has
  # left the node, or srun would also say its job is waiting.
  node_is_idle
  run --separate-stderr as_user srun -A fixed -J pairs2 -c2 --cpu-bind=map_cpu:1 "$WORK/bin/pairs2"
  [ "$status" -ne 0 ]
  [ -z "$output" ]
  stderr=$(grep -v 'lacks support for cpu binding' <<<"$stderr")  # task/none's own note
  expect_one_error_line srun "--cpu-bind=map_cpu:1: the site policy's rule fixed-account binds every step of this job with strategy 'compact' (enforce): remove --cpu-bind"
  # Refused before any task started, and the job srun made for it is over.
  job=$(squeue -h -t all -n pairs2 -o %i | sort -n | tail -1)
  for _ in $(seq 50); do [ -z "$(squeue -h -j "$job" -t R,CG -o %i 2>/dev/null)" ] && break; sleep 0.1; done
  [ -z "$(squeue -h -j "$job" -t R,CG -o %i 2>/dev/null)" ]
  node_is_idle
  # Without --cpu-bind the enforced rule applies as before.
  run as_user srun -A fixed -J pairs2 -c2 "$WORK/bin/pairs2"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
}

@test "a broken policy file leaves submission working and logs one error naming file and line" {
  printf 'return {\n  rules = {\n    { name = "r", match = {}, action = { strategy = "fastest" } },\n  },\n}\n' \
    >"$CLUSTER/slurm-pin-policy.lua"
  before=$(grep -c "policy disabled" "$CLUSTER/log/slurmctld.log" || true)
  run as_user srun -J pairs2 -c2 "$WORK/bin/pairs2"
  [ "$status" -eq 0 ]
  [ -z "$(env_of 0 SLURM_PIN_STRATEGY)" ]  # the job ran, unchanged
  run as_user srun -J pairs2 -c2 true
  [ "$status" -eq 0 ]
  [ "$(grep -c "policy disabled" "$CLUSTER/log/slurmctld.log")" -eq $((before + 1)) ]
  grep -q "slurm-pin: policy disabled, jobs pass unchanged: $CLUSTER/slurm-pin-policy.lua:3: rule 1 (r): unknown strategy 'fastest'" \
    "$CLUSTER/log/slurmctld.log"
}

@test "the rule evaluate emits, installed as the policy, gives the job what was measured: strategy, binding, environment" {
  # Known figures: compact is decided a speedup over none (evaluate.bats).
  prog=$(figures_program)
  run --separate-stderr as_user env OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$SLURM_PIN" evaluate --runs 10 \
    --strategies none,compact -n 1 -c 2 --srun-arg=--pin-thread-binding=preload --metric 'time: ([0-9.]+)' \
    --seed 4 --emit-rule --app figapp --journal "$WORK/figapp.journal" -- "$prog"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  echo "$output" >"$WORK/evaluated.lua"
  grep -q '^-- recommended: compact' "$WORK/evaluated.lua"
  grep -q 'name = "evaluated-figapp-n1-t2", match = { app = "figapp", tasks = { min = 1, max = 1 }, threads = { min = 2, max = 2 } },' "$WORK/evaluated.lua"
  grep -q 'action = { strategy = "compact", thread_binding = "preload", env = { OMP_NUM_THREADS = "2", OMP_WAIT_POLICY = "passive" }, mode = "default" }' "$WORK/evaluated.lua"
  run "$SLURM_PIN" policy check "$WORK/evaluated.lua"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  cp "$WORK/evaluated.lua" "$CLUSTER/slurm-pin-policy.lua"
  # A job of that application and shape, that sets none of it itself.
  run --separate-stderr as_user srun -J figapp -n1 -c2 --pin-verbose "$WORK/bin/omp_gomp"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  job=$(squeue -h -t all -n figapp -o %i | sort -n | tail -1)
  [ "$(admin_comment "$job")" = "slurm-pin: rule=evaluated-figapp-n1-t2 mode=default strategy=compact thread_binding=preload tasks=1 threads=2 env.OMP_NUM_THREADS=2 env.OMP_WAIT_POLICY=passive" ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
  [ "$(env_of 0 SLURM_PIN_THREAD_BINDING)" = preload ]
  [ "$(env_of 0 OMP_NUM_THREADS)" = 2 ]
  [ "$(env_of 0 OMP_WAIT_POLICY)" = passive ]
  [ "$(thread_cpus 0)" = "0 1" ]
  [[ "$stderr" == *"note: policy rule evaluated-figapp-n1-t2 set OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive"* ]]
  claims_are_real
  # A default rule fills what the step does not set: the user's own value stays, and verbose says so.
  run --separate-stderr as_user env OMP_NUM_THREADS=1 srun -J figapp -n1 -c2 --pin-verbose "$WORK/bin/omp_gomp"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(env_of 0 OMP_NUM_THREADS)" = 1 ]
  [ "$(env_of 0 OMP_WAIT_POLICY)" = passive ]
  [[ "$stderr" == *"note: policy rule evaluated-figapp-n1-t2 set OMP_WAIT_POLICY=passive (the step's own OMP_NUM_THREADS kept)"* ]]
  # Another shape is another rule's (here none's): nothing set.
  run --separate-stderr as_user srun -J figapp -n2 -c1 "$WORK/bin/omp_gomp"
  [ "$status" -eq 0 ]
  [ "$(env_of 0 OMP_WAIT_POLICY)" = "" ]
  [ "$(env_of 0 SLURM_PIN_THREAD_BINDING)" != preload ]
  # A change of the job decides it again on its recorded shape: a user's rename to the same application passes.
  job=$(as_user sbatch --parsable -J figapp -n1 -c2 -H -o /dev/null --wrap true)
  [[ "$(admin_comment "$job")" == "slurm-pin: rule=evaluated-figapp-n1-t2 "* ]]
  run as_user scontrol update job "$job" Name=figapp
  scancel "$job"
  [ "$status" -eq 0 ] || { echo "$output"; tail -5 "$CLUSTER/log/slurmctld.log"; false; }
}

@test "slurm-pin policy check and explain" {
  run "$SLURM_PIN" policy check "$BATS_TEST_DIRNAME/../../etc/slurm-pin-policy.lua"
  [ "$status" -eq 0 ]
  run --separate-stderr "$SLURM_PIN" policy check "$CLUSTER/slurm-pin-policy.lua"
  [ "$status" -eq 0 ]
  [ "$output" = "$CLUSTER/slurm-pin-policy.lua: ok, 4 rules, 1 partition defaults" ]
  [[ "$stderr" == *"warning: rule 3 (fixed-profile): profile pairs2 is used whatever the job's thread count"* ]]
  run "$SLURM_PIN" policy explain --policy "$CLUSTER/slurm-pin-policy.lua" --job-name pairs2 --threads 2
  [[ "$output" == *"rule:         profiled (default)"* ]]
  [[ "$output" == *"decision:     slurm-pin: rule=profiled mode=default strategy=lpgp profile=pairs2"* ]]
  run "$SLURM_PIN" policy explain --policy "$CLUSTER/slurm-pin-policy.lua" --job-name x --account fixed --pin-strategy scatter
  [[ "$output" == *"effect:       applied, overriding any user choice"* ]]
  # Without --policy: the policy in force, beside the slurm.conf that SLURM_CONF names, as slurmctld finds it.
  run --separate-stderr "$SLURM_PIN" policy explain --job-name pairs2 --threads 2
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$output" == "policy:       $CLUSTER/slurm-pin-policy.lua (4 rules)"* ]] || { echo "$output"; false; }
  [[ "$output" == *"rule:         profiled (default)"* ]]
  # A rule naming one profile whatever the job's thread count: check warns,
  # explain says what a job the store has no profile for gets.
  cat >"$WORK/fixed.lua" <<FIXED
return { store = "$STORE", rules = {
  { name = "fixed-profile", match = { app = "pairs2" }, action = { strategy = "lpgp", profile = "pairs2" } },
  { name = "gone", match = { account = "g" }, action = { strategy = "gp", profile = "gone", mode = "enforce" } } } }
FIXED
  run --separate-stderr "$SLURM_PIN" policy check "$WORK/fixed.lua"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"warning: rule 1 (fixed-profile): profile pairs2 is used whatever the job's thread count; for a job it does not fit, the node places it compact without the profile"* ]]
  [[ "$stderr" == *"warning: rule 2 (gone): profile gone is not in the store $STORE; for a job it does not fit, the job fails with one line naming the rule"* ]]
  run "$SLURM_PIN" policy explain --policy "$WORK/fixed.lua" --job-name pairs2 --threads 1
  [[ "$output" == *"effect:       the store has no 1-thread profile of pairs2: the node places it compact without the profile"* ]]
  run "$SLURM_PIN" policy explain --policy "$WORK/fixed.lua" --job-name pairs2 --threads 2
  [[ "$output" == *"effect:       applied"* ]]
  printf 'return { rules = { { name = "r", match = { colour = "red" }, action = { strategy = "compact" } } } }\n' >"$WORK/bad.lua"
  run "$SLURM_PIN" policy check "$WORK/bad.lua"
  [ "$status" -eq 1 ]
  [ "$output" = "slurm-pin: error: $WORK/bad.lua:1: rule 1 (r): unknown match 'colour' (use app, partition, account, user, qos, nodes, tasks, threads, has_profile)" ]
}

# The decision files on the node (docs/spank.md "Files root keeps on the node").
decisions() { ls "$CLUSTER/pin-run/jobs" 2>/dev/null | sort | tr '\n' ' '; }

@test "decisions of jobs whose epilog never ran here go at the next epilog and at slurmd's start; a running job's stay" {
  job=$(as_user sbatch --parsable -c1 -o /dev/null --wrap "srun -c1 sleep 60")
  for _ in $(seq 100); do [[ "$(decisions)" == *"$job."* ]] && break; sleep 0.1; done
  [[ "$(decisions)" == *"$job."* ]]
  node=$(decisions | grep -o "$job\.[^ ]*" | cut -d. -f2-)
  # What a job ended while slurmd was away leaves (its epilog never ran
  # here), beside what is not a decision file of slurm-pin's.
  printf 'slurm-pin: none' >"$CLUSTER/pin-run/jobs/4242.$node"
  chmod 600 "$CLUSTER/pin-run/jobs/4242.$node"
  printf 'x' >"$CLUSTER/pin-run/jobs/notes"
  ln -s /etc/hostname "$CLUSTER/pin-run/jobs/4243.$node"
  # Another job ends on the node: its epilog sweeps.
  run as_user srun -c1 true
  [ "$status" -eq 0 ]
  for _ in $(seq 100); do [[ "$(decisions)" != *"4242.$node"* ]] && break; sleep 0.1; done
  echo "left: $(decisions)"
  [[ "$(decisions)" != *"4242.$node"* ]]
  [[ "$(decisions)" == *"$job.$node"* ]]  # still running here
  [ -e "$CLUSTER/pin-run/jobs/notes" ]
  [ -L "$CLUSTER/pin-run/jobs/4243.$node" ]
  [ "$(cat /etc/hostname)" = "$(cat "$CLUSTER/pin-run/jobs/4243.$node")" ]
  scancel "$job"
  node_is_idle
  # slurmd's start sweeps too (a job that ended while it was down).
  printf 'slurm-pin: none' >"$CLUSTER/pin-run/jobs/4244.$node"
  "$LOCAL_CLUSTER" restart-slurmd "$CLUSTER"
  [[ "$(decisions)" != *"4244.$node"* ]]
  grep -q "slurm-pin: removed 1 policy decision of jobs no longer running on this node" "$CLUSTER/log/slurmd.log"
  rm -f "$CLUSTER/pin-run/jobs/notes" "$CLUSTER/pin-run/jobs/4243.$node"
}
