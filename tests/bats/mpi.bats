#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# MPI jobs however their ranks are launched, on a two-node local Slurm in
# the configuration sites run (proctrack/cgroup, task/cgroup,task/affinity,
# ConstrainCores=yes), with Debian's Open MPI and MPICH: direct launch
# through srun (pmix, pmi2), MPICH's mpiexec (hydra proxies started with
# srun) and Open MPI's mpirun (orted started with srun). Every rank and
# thread must run where slurm-pin placed it among its node's ranks, and its
# environment must say so (docs/spank.md "MPI").
# Both nodes are this machine (2 CPUs each); two emulated nodes need Open
# MPI's TCP transport (../shared/notes/mpi-and-cgroup.md).

load mpi_helpers

setup_file() {
  export SLURM_PIN_NODES="n1 n2"
  slurm_up production
  build_mpi_programs
  # What this Slurm and this Open MPI can do here, each asked without
  # slurm-pin: Debian testing's Slurm (26.05) has no pmix plugin, and Open
  # MPI 6 finds no TCP pairing between two slurmd emulated on one host
  # (its ranks fail to connect with or without slurm-pin).
  srun --mpi=list 2>&1 | grep -qw pmix && export HAVE_PMIX=1
  : >"$CLUSTER/plugstack.conf"
  printf '#!/bin/bash\nexport %s\nmpirun.openmpi -np 2 %s\n' "$OMPI_TRANSPORT" "$WORK/bin/report_openmpi" >"$WORK/probe.sh"
  chmod 755 "$WORK/probe.sh"
  as_user timeout 120 sbatch --wait -N2 --ntasks-per-node=1 -c1 -o "$WORK/probe.out" "$WORK/probe.sh" >/dev/null 2>&1 &&
    export OPENMPI_ACROSS_NODES=1 || true
}

# Skips a test of Open MPI across the two emulated nodes where the probe
# above failed without slurm-pin.
need_openmpi_across_nodes() {
  [ -n "${OPENMPI_ACROSS_NODES:-}" ] ||
    skip "Open MPI $(mpirun.openmpi --version 2>/dev/null | grep -o '[0-9][0-9.a-z~]*' | head -1) connects no ranks across two slurmd emulated on one host, even without slurm-pin (mpi_one_node.bats runs its mpirun)"
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

# Every rank's environment describes its own binding: its places, no
# variable of its launcher's daemon, the runtime preloaded once and only
# for its own thread binding (auto, the default, binds pthreads with it).
clean_env() {
  local r preload
  for r in "$@"; do
    [ -z "$(rank_env "$r" SLURM_PIN_RANK_OPTIONS)" ] || { echo "rank $r has SLURM_PIN_RANK_OPTIONS"; return 1; }
    preload=$(rank_env "$r" LD_PRELOAD)
    if [[ $preload == *libslurm_pin_threads* ]]; then
      [ "$(rank_env "$r" SLURM_PIN_THREAD_BINDING)" = auto ] || { echo "rank $r preloads the runtime for no binding"; return 1; }
      [ "$(grep -o libslurm_pin_threads <<<"$preload" | wc -l)" -eq 1 ] || { echo "rank $r preloads it twice: $preload"; return 1; }
    fi
    # srun sets SLURM_EXTERNAL_LAUNCHER=1 for the tasks of an external
    # launcher's step (hydra's proxies); the value the runtime asked srun
    # for prted's step never reaches a rank.
    [ "$(rank_env "$r" SLURM_EXTERNAL_LAUNCHER)" != slurm-pin ] || { echo "rank $r has slurm-pin's SLURM_EXTERNAL_LAUNCHER"; return 1; }
  done
}

# Direct launch through srun --mpi=$1 of program $2, on slurm-pin's places.
direct_launch() {
  run_ranks env $OMPI_TRANSPORT OMP_NUM_THREADS=1 srun --mpi="$1" -N2 -n4 -c1 --pin-strategy=compact "$WORK/bin/$2"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  ranks_run_on "n1:0" "n1:1" "n2:0" "n2:1"
  [ "$(rank_env 1 OMP_PLACES)" = "{1}" ]
  run_ranks srun --mpi="$1" -N1 -n1 -c2 --pin-strategy=scatter "$WORK/bin/$2"
  [ "$status" -eq 0 ]
  [ "$(rank_threads 0)" = "n1:0 n1:1" ]
}

@test "direct launch: srun --mpi=pmix (Open MPI) on slurm-pin's places" {
  [ -n "${HAVE_PMIX:-}" ] || skip "this Slurm has no pmix MPI plugin (srun --mpi=list): PMI-2 is tested below"
  direct_launch pmix report_openmpi
}

@test "direct launch: srun --mpi=pmi2 (MPICH) on slurm-pin's places" {
  direct_launch pmi2 report_mpich
}

@test "MPICH mpiexec (hydra) over two nodes: each node's ranks by local rank, one verbose line each" {
  batch 'export OMP_NUM_THREADS=1; mpiexec.hydra -n 4 -ppn 2 '"$WORK/bin/report_mpich" \
    -N2 --ntasks-per-node=2 -c1 --pin-strategy=compact --pin-verbose
  ranks_run_on "n1:0" "n1:1" "n2:0" "n2:1"
  [ "$(rank_env 0 OMP_PLACES)" = "{0}" ]
  [ "$(rank_env 1 OMP_PLACES)" = "{1}" ]
  [ "$(rank_env 3 SLURM_PIN_CPUS)" = "1" ]
  clean_env 0 1 2 3
  for r in 0 1 2 3; do
    [ "$(grep -c "^slurm-pin: n[12] rank $r (local $((r % 2)) of 2, started by hydra_pmi_proxy): strategy compact, 1 thread on CPUs $((r % 2)), places {$((r % 2))}" <<<"$output")" -eq 1 ]
  done
  grep -q "hydra_pmi_proxy, left as Slurm placed it" <<<"$output"
  stderr=$output claims_are_real  # every rank's line, against its threads' own affinity
}

@test "Open MPI mpirun over two nodes: orted left alone, ranks placed; --bind-to core and none; a file reversing local ranks" {
  need_openmpi_across_nodes
  for bind in "" "--bind-to core" "--bind-to none"; do
    batch "export OMP_NUM_THREADS=1; mpirun.openmpi -np 4 $bind $WORK/bin/report_openmpi" \
      -N2 --ntasks-per-node=2 -c1 --pin-strategy=compact --pin-verbose
    ranks_run_on "n1:0" "n1:1" "n2:0" "n2:1"
    clean_env 0 1 2 3
    [ "$(grep -Ec "started by (orted|prted)\): strategy compact" <<<"$output")" -eq 4 ]
    stderr=$output claims_are_real
  done
  # Local rank 0 on CPU 1, local rank 1 on CPU 0: not what Open MPI's own
  # binding (rank to core in order) would give.
  batch "export OMP_NUM_THREADS=1; mpirun.openmpi -np 4 --bind-to core $WORK/bin/report_openmpi" \
    -N2 --ntasks-per-node=2 -c1 --pin-strategy="file:$WORK/reverse.placement"
  ranks_run_on "n1:1" "n1:0" "n2:1" "n2:0"
  [ "$(rank_env 0 OMP_PLACES)" = "{1}" ]
  [ "$(rank_env 0 SLURM_CPU_BIND)" = "quiet,mask_cpu:0x2,0x1" ]
}

@test "hybrid MPI+OpenMP and pure MPI ranks under a launcher" {
  for launch in "mpirun.openmpi -np 2 --bind-to none $WORK/bin/report_openmpi" \
    "mpiexec.hydra -n 2 -ppn 1 $WORK/bin/report_mpich"; do
    [[ $launch != mpirun* ]] || [ -n "${OPENMPI_ACROSS_NODES:-}" ] || continue  # need_openmpi_across_nodes
    batch "export OMP_NUM_THREADS=2; $launch" -N2 --ntasks-per-node=1 -c2 --pin-strategy=scatter --pin-verbose
    ranks_run_on "n1:0 n1:1" "n2:0 n2:1"
    stderr=$output claims_are_real
    [ "$(rank_env 1 OMP_PLACES)" = "{0},{1}" ]
  done
  # OMP_NUM_THREADS unset: one thread per core of the rank's share.
  batch "mpiexec.hydra -n 4 -ppn 2 $WORK/bin/report_mpich" -N2 --ntasks-per-node=2 -c1 --pin-strategy=compact
  ranks_run_on "n1:0" "n1:1"
  [ "$(rank_env 1 OMP_NUM_THREADS)" = "1" ]
  batch "mpiexec.hydra -n 4 -ppn 2 $WORK/bin/pure_mpich" -N2 --ntasks-per-node=2 -c1 --pin-strategy=compact
  [ "$(rank_threads 2)" = "n2:0" ]
  [ "$(rank_threads 3)" = "n2:1" ]
  [ "$(rank_env 2 SLURM_PIN_CPUS)" = "0" ]
}

@test "more ranks than CPUs share them, spread evenly; a rank that cannot be placed says so and runs as started" {
  # Three ranks on a node of two CPUs: placed, neighbours sharing a CPU.
  batch "export OMP_NUM_THREADS=1; mpiexec.hydra -n 6 -ppn 3 $WORK/bin/report_mpich" \
    -N2 --ntasks-per-node=2 -c1 --pin-strategy=compact --pin-verbose
  ranks_run_on "n1:0" "n1:0" "n1:1" "n2:0" "n2:0" "n2:1"
  [ "$(grep -c 'started by hydra_pmi_proxy): strategy compact' <<<"$output")" -eq 6 ]
  stderr=$output claims_are_real
  clean_env 0 1 2 3 4 5
  # A site that wants the error: each rank says it in one line and runs as
  # its launcher started it.
  set_plugstack oversubscribe=error
  batch "export OMP_NUM_THREADS=1; mpiexec.hydra -n 6 -ppn 3 $WORK/bin/report_mpich" \
    -N2 --ntasks-per-node=2 -c1 --pin-strategy=compact
  [ "$(grep -c 'cannot be placed (3 tasks but only 2 cores' <<<"$output")" -eq 6 ]
  [ "$(grep -c ' thread 0 cpu ' <<<"$output")" -eq 6 ]  # every rank ran
  for r in 0 1 2 3 4 5; do
    [ -z "$(rank_env "$r" SLURM_PIN_CPUS)" ]
    [ -z "$(rank_env "$r" SLURM_PIN_STRATEGY)" ]
    [ "$(rank_env "$r" OMP_PLACES)" = "" ]
  done
  clean_env 0 1 2 3 4 5
}

@test "without a strategy, launchers and ranks run exactly as without slurm-pin" {
  # Where each rank ran (Open MPI 4 under Slurm 22.05: CPUs 0-1; Open MPI 5
  # under Slurm 24.11 gives prted's step one CPU per node: CPU 0), first
  # with no plugin at all.
  masks() { grep '^rank .* thread 0 ' <<<"$output" | awk '{ print $2, $4, $10 }' | sort; }
  for launch in "mpirun.openmpi -np 4 --bind-to none $WORK/bin/report_openmpi" \
    "mpiexec.hydra -n 4 -ppn 2 $WORK/bin/report_mpich"; do
    [[ $launch != mpirun* ]] || [ -n "${OPENMPI_ACROSS_NODES:-}" ] || continue  # need_openmpi_across_nodes
    job="export OMP_NUM_THREADS=1; $launch"
    : >"$CLUSTER/plugstack.conf"
    batch "$job" -N2 --ntasks-per-node=2 -c1
    without=$(masks)
    [ "$(wc -l <<<"$without")" -eq 4 ]
    set_plugstack
    batch "$job" -N2 --ntasks-per-node=2 -c1
    [ "$(masks)" = "$without" ] || { echo "without slurm-pin:"; echo "$without"; echo "with:"; masks; false; }
    for r in 0 1 2 3; do
      [ -z "$(rank_env "$r" SLURM_PIN_STRATEGY)" ]
      [ -z "$(rank_env "$r" OMP_PLACES)" ]
    done
    clean_env 0 1 2 3
  done
}
