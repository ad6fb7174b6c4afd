#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# With Slurm's task/affinity: --pin-strategy replaces Slurm's per-task
# binding inside the step's allocation; none leaves Slurm's binding alone.

load slurm_helpers

setup_file() { slurm_up task/affinity; }
teardown_file() { slurm_down; }
setup() { set_plugstack; }

omp() { echo "$WORK/bin/omp_$1"; }

@test "without slurm-pin, task/affinity binds task 0 to CPU 0 and task 1 to CPU 1" {
  run as_user srun -n2 --cpu-bind=cores "$(omp gomp)"
  [ "$status" -eq 0 ]
  grep -q "^rank 0 thread 0 cpu 0 mask 0$" <<<"$output"
  grep -q "^rank 1 thread 0 cpu 1 mask 1$" <<<"$output"
}

@test "none keeps Slurm's binding" {
  run as_user srun -n2 --cpu-bind=cores --pin-strategy=none "$(omp gomp)"
  grep -q "^rank 0 thread 0 cpu 0 mask 0$" <<<"$output"
  [ -z "$(env_of 0 SLURM_PIN_STRATEGY)" ]
}

@test "a strategy has the last word: a placement file swaps Slurm's task binding" {
  printf 'slurm-pin-placement 1\ntask 0: 1\ntask 1: 0\n' >"$WORK/swap.placement"
  chmod 644 "$WORK/swap.placement"
  run as_user srun -n2 --cpu-bind=cores --pin-strategy="file:$WORK/swap.placement" "$(omp gomp)"
  [ "$status" -eq 0 ]
  grep -q "^rank 0 thread 0 cpu 1 mask 1$" <<<"$output"
  grep -q "^rank 1 thread 0 cpu 0 mask 0$" <<<"$output"
}

@test "threads of a task follow their places under task/affinity" {
  run as_user srun -n1 -c2 --pin-strategy=scatter "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = "0 1" ]
  grep -q "^rank 0 thread 1 cpu 1 mask 1$" <<<"$output"
}

@test "the step's allocation still bounds slurm-pin" {
  printf 'slurm-pin-placement 1\ntask 0: 0 1\n' >"$WORK/both.placement"
  chmod 644 "$WORK/both.placement"
  run --separate-stderr as_user srun -n1 -c1 --pin-strategy="file:$WORK/both.placement" "$(omp gomp)"
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"outside the allowed CPUs"* ]]
  node_is_idle
}

@test "a strategy over an explicit --cpu-bind: one srun warning, and SLURM_CPU_BIND* tell the real binding" {
  printf 'slurm-pin-placement 1\ntask 0: 1\ntask 1: 0\n' >"$WORK/swap.placement"
  chmod 644 "$WORK/swap.placement"
  run --separate-stderr as_user srun -n2 --cpu-bind=map_cpu:0,1 --pin-strategy="file:$WORK/swap.placement" \
    "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(grep -c 'warning' <<<"$stderr")" -eq 1 ]
  [[ "$stderr" == *"srun: warning: --pin-strategy=file:$WORK/swap.placement replaces --cpu-bind=map_cpu:0,1 in every task"* ]]
  grep -q "^rank 0 thread 0 cpu 1 mask 1$" <<<"$output"
  # Nested launchers read these: they describe slurm-pin's binding, not Slurm's.
  [ "$(env_of 0 SLURM_CPU_BIND)" = "quiet,mask_cpu:0x2,0x1" ]
  [ "$(env_of 1 SLURM_CPU_BIND_LIST)" = "0x2,0x1" ]
  [ "$(env_of 1 SLURM_CPU_BIND_TYPE)" = "mask_cpu:" ]
  # No warning without an explicit binding, with --cpu-bind=none, or with none.
  for args in "--pin-strategy=compact" "--cpu-bind=none --pin-strategy=compact" "--cpu-bind=cores --pin-strategy=none"; do
    run --separate-stderr as_user srun -n2 $args true
    [ "$status" -eq 0 ]
    [[ "$stderr" != *warning* ]]
  done
}

@test "an explicit --cpu-bind is the user's choice: a site default yields to it, verbose says so; enforce refuses it" {
  set_plugstack default=compact
  # Without --cpu-bind the site's default places the tasks; map_cpu:1,0 is
  # what Slurm then applies, and what each task runs on.
  run --separate-stderr as_user srun -n2 --cpu-bind=verbose,map_cpu:1,0 --pin-verbose "$(omp gomp)"
  [ "$status" -eq 0 ]
  grep -q "^rank 0 thread 0 cpu 1 mask 1$" <<<"$output"
  grep -q "^rank 1 thread 0 cpu 0 mask 0$" <<<"$output"
  [ -z "$(env_of 0 SLURM_PIN_STRATEGY)" ]
  [[ "$stderr" == *"--cpu-bind=verbose,map_cpu:1,0 is this step's binding: the site's default placement does not apply"* ]]
  [[ "$stderr" != *"slurm-pin: "*"task 0"* ]]  # no line claims a placement
  run --separate-stderr as_user srun -n2 "$(omp gomp)"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
  set_plugstack default=compact enforce
  node_is_idle  # refused once its job exists: no "waiting" line from srun
  run --separate-stderr as_user srun -n2 --cpu-bind=map_cpu:1,0 "$(omp gomp)"
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--cpu-bind=map_cpu:1,0: this cluster binds every step with strategy 'compact' (enforce): remove --cpu-bind"
  node_is_idle
}
