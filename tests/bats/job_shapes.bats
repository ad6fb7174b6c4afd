#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Job shapes through a two-node local Slurm in the configuration production
# sites run (proctrack/cgroup, task/cgroup,task/affinity, ConstrainCores),
# with plugstack.conf as the docs give it: uneven and oversubscribed splits,
# more threads than cores, hybrid and heterogeneous steps, batch steps. Every
# verbose line that says where a task runs is checked against the affinity
# its threads really have (claims_are_real), and nothing runs half-bound.

load slurm_helpers

setup_file() {
  export SLURM_PIN_NODES="n1 n2"
  slurm_up production
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

omp() { echo "$WORK/bin/omp_gomp"; }

@test "direct srun: one task per CPU, a task of both CPUs, two nodes" {
  for shape in "-n2 -c1" "-n1 -c2" "-N2 -n4 -c1" "-N2 -n2 -c2"; do
    run --separate-stderr as_user srun $shape --pin-strategy=compact --pin-verbose "$(omp)"
    [ "$status" -eq 0 ] || { echo "$shape: $stderr"; false; }
    claims_are_real || { echo "srun $shape"; false; }
  done
}

@test "more threads than cores: they share them, as reported" {
  run --separate-stderr as_user env OMP_NUM_THREADS=3 srun -n1 -c2 --pin-strategy=compact --pin-verbose "$(omp)"
  [ "$status" -eq 0 ]
  claims_are_real
  [[ "$stderr" == *"note: 3 threads per task on 2 cores (oversubscribed)"* ]]
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -n2 -c1 --pin-strategy=scatter --pin-verbose "$(omp)"
  [ "$status" -eq 0 ]
  claims_are_real
}

@test "more tasks than CPUs when Slurm oversubscribes: spread, as reported" {
  # srun -O inside a job of 2 CPUs (outside one, Slurm 24.11 never grants it).
  run as_user timeout 120 sbatch --wait -N1 -n2 -c1 -o "$WORK/over.out" -e "$WORK/over.err" \
    --wrap "srun -n3 -O --pin-strategy=compact --pin-verbose $(omp)"
  [ "$status" -eq 0 ]
  output=$(cat "$WORK/over.out")
  stderr=$(cat "$WORK/over.err")
  claims_are_real
  [ "$(grep -c '^rank [0-2] thread 0 ' <<<"$output")" -eq 3 ]
}

@test "a heterogeneous step: each component placed by its own options, as reported" {
  run --separate-stderr as_user srun -n1 -c1 --pin-strategy=compact --pin-verbose "$(omp)" : \
    -n1 -c2 --pin-strategy=scatter --pin-verbose "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  claims_are_real
  [ "$(grep -c 'strategy scatter' <<<"$stderr")" -eq 1 ]
  [ "$(grep -c 'strategy compact' <<<"$stderr")" -eq 1 ]
}

@test "a batch job's srun steps: placed as reported; the batch shell itself is not" {
  run as_user sbatch --wait -N1 -n2 -c1 -o "$WORK/shape.out" -e "$WORK/shape.err" \
    --wrap "srun --pin-strategy=compact --pin-verbose $(omp)"
  [ "$status" -eq 0 ]
  output=$(cat "$WORK/shape.out")
  stderr=$(cat "$WORK/shape.err")
  claims_are_real
}
