#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# MPI jobs on one node, in the production configuration (proctrack/cgroup,
# task/cgroup,task/affinity, ConstrainCores=yes): here the node's name is
# the host's, so Open MPI's mpirun forks the ranks itself from the batch
# script (no srun step at all), and `slurm-pin run` serves as the ranks'
# wrapper (mpirun -np 2 slurm-pin run ... -- ./app).

load mpi_helpers

setup_file() {
  slurm_up production
  build_mpi_programs
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

@test "Open MPI mpirun forking its ranks from the batch script: each placed by local rank, one verbose line each" {
  batch "export OMP_NUM_THREADS=1; mpirun.openmpi -np 2 $WORK/bin/report_openmpi" \
    -n2 -c1 --pin-strategy=compact --pin-verbose
  [ "$(rank_cpus 0)" = 0 ]
  [ "$(rank_cpus 1)" = 1 ]
  [ "$(rank_env 0 OMP_PLACES)" = "{0}" ]
  [ "$(rank_env 1 SLURM_PIN_CPUS)" = 1 ]
  [ "$(rank_env 0 SLURM_PIN_THREAD_BINDING)" = auto ]  # the rank's own binding, not the launcher's
  [ -z "$(rank_env 1 SLURM_PIN_RANK_OPTIONS)" ]
  grep -q "rank 0 (local 0 of 2, started by batch script): strategy compact, 1 thread on CPUs 0, places {0}" <<<"$output"
  grep -q "rank 1 (local 1 of 2, started by batch script): strategy compact, 1 thread on CPUs 1, places {1}" <<<"$output"
  stderr=$output claims_are_real
  # The same with a file that reverses the local ranks, against Open MPI's
  # own binding.
  batch "export OMP_NUM_THREADS=1; mpirun.openmpi -np 2 --bind-to core $WORK/bin/report_openmpi" \
    -n2 -c1 --pin-strategy="file:$WORK/reverse.placement"
  [ "$(rank_cpus 0)" = 1 ]
  [ "$(rank_cpus 1)" = 0 ]
  # Hybrid: one rank with two threads.
  batch "export OMP_NUM_THREADS=2; mpirun.openmpi -np 1 $WORK/bin/report_openmpi" -n1 -c2 --pin-strategy=scatter \
    --pin-verbose
  [ "$(rank_cpus 0)" = "0 1" ]
  stderr=$output claims_are_real
}

@test "MPICH mpiexec on one node: its proxy step left alone, its ranks placed" {
  batch "export OMP_NUM_THREADS=1; mpiexec.hydra -n 2 $WORK/bin/report_mpich" \
    -n2 -c1 --pin-strategy="file:$WORK/reverse.placement" --pin-verbose
  [ "$(rank_cpus 0)" = 1 ]
  [ "$(rank_cpus 1)" = 0 ]
  grep -q "hydra_pmi_proxy, left as Slurm placed it" <<<"$output"
  [ "$(grep -c 'started by hydra_pmi_proxy' <<<"$output")" -eq 2 ]
  stderr=$output claims_are_real
}

@test "the batch script's preparation reaches its ranks only: an inner srun step and other programs see none of it" {
  batch "echo \"script preload=\$LD_PRELOAD\"
srun -n1 -c1 sh -c 'echo \"step preload=\$LD_PRELOAD binding=\$SLURM_PIN_THREAD_BINDING options=\$SLURM_PIN_RANK_OPTIONS node=\$SLURM_PIN_NODE_CPUS\"'
srun -n1 -c1 --pin-strategy=compact --pin-thread-binding=preload sh -c 'echo \"pinned preload=\$LD_PRELOAD cpus=\$SLURM_PIN_CPUS\"'" \
    -n2 -c1 --pin-strategy=compact
  grep -q "^script preload=.*libslurm_pin_threads.so" <<<"$output"
  # The inner step is bound by the job's strategy: the runtime once, for its own thread binding (auto).
  grep -q "^step preload=[^ ]*libslurm_pin_threads.so binding=auto options= node=$" <<<"$output" || { echo "$output"; false; }
  grep -q "^pinned preload=.*libslurm_pin_threads.so cpus=0$" <<<"$output"
}

@test "slurm-pin run as the ranks' wrapper: mpirun -np 2 slurm-pin run ... places each rank by local rank" {
  batch "export OMP_NUM_THREADS=1; mpirun.openmpi -np 2 $SLURM_PIN run --strategy compact --verbose -- $WORK/bin/report_openmpi" \
    -n2 -c1
  [ "$(rank_cpus 0)" = 0 ]
  [ "$(rank_cpus 1)" = 1 ]
  grep -q "rank 1 (local 1 of 2): strategy compact, 1 thread on CPUs 1, places {1}" <<<"$output"
  batch "export OMP_NUM_THREADS=1; mpiexec.hydra -n 2 $SLURM_PIN run --strategy file:$WORK/reverse.placement -- $WORK/bin/report_mpich" \
    -n2 -c1
  [ "$(rank_cpus 0)" = 1 ]
  [ "$(rank_cpus 1)" = 0 ]
}

@test "ranks under mpirun and mpiexec know the job's size: a rank profile of the job's size is used, another size is one note per node" {
  printf 'slurm-pin-profile 1\nthreads 1\nranks 2\nrank_matrix bytes\n0 5\n5 0\n' >"$WORK/ranks2.profile"
  chmod a+r "$WORK/ranks2.profile"
  local launch
  for launch in "mpirun.openmpi -np 2 $WORK/bin/report_openmpi" "mpiexec.hydra -n 2 $WORK/bin/report_mpich"; do
    batch "export OMP_NUM_THREADS=1; $launch" -n2 -c1 --pin-strategy=compact --pin-profile="$WORK/ranks2.profile" --pin-verbose
    [ "$(rank_cpus 0)" = 0 ]
    [ "$(rank_cpus 1)" = 1 ]
    stderr=$output claims_are_real
    [[ "$output" != *"rank traffic is of"* ]] || { echo "$output"; false; }
    batch "export OMP_NUM_THREADS=1; $launch" -n2 -c1 --pin-strategy=compact \
      --pin-profile="$FIXTURES/profiles/ranks8_pairs.profile" --pin-verbose
    [ "$(grep -c "rank traffic is of 8 ranks but the job has 2 tasks" <<<"$output")" -eq 1 ] || { echo "$output"; false; }
    [ "$(rank_cpus 0)" = 0 ]
    [ "$(rank_cpus 1)" = 1 ]
    stderr=$output claims_are_real
  done
}
