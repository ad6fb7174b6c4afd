#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin on a two-node local Slurm in the configuration production
# sites run: proctrack/cgroup, task/cgroup,task/affinity, a cgroup.conf with
# ConstrainCores=yes and ConstrainRAMSpace=yes, memory given to jobs
# (CR_Core_Memory). The step's cgroup bounds every task; slurm-pin's
# binding comes after Slurm's and stays inside it.

load slurm_helpers

setup_file() {
  export SLURM_PIN_NODES="n1 n2" SLURM_PIN_MEMORY=constrained
  slurm_up production
  printf 'slurm-pin-placement 1\ntask 0: 1\ntask 1: 0\n' >"$WORK/swap.placement"
  printf 'slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 9\n9 0\n' >"$WORK/pair.profile"
  chmod 644 "$WORK/swap.placement" "$WORK/pair.profile"
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

omp() { echo "$WORK/bin/omp_gomp"; }

# The cpuset of the cgroup of the step a task runs in, as the task sees it.
cgroup_cpus_probe='cat /sys/fs/cgroup/cpuset$(sed -n "s/^[0-9]*:cpuset://p" /proc/self/cgroup)/cpuset.cpus'

@test "cgroups hold: a task's cgroup is its step's, on each node" {
  run --separate-stderr as_user srun -N2 -n2 -c2 sh -c "echo \$SLURMD_NODENAME \$($cgroup_cpus_probe)"
  [ "$status" -eq 0 ]
  [ "$(sort <<<"$output")" = "$(printf 'n1 0-1\nn2 0-1')" ]
}

@test "every strategy on two nodes: threads on distinct CPUs of the step, inside its cgroup" {
  for s in compact scatter random lp-compact lp-scatter gp lpgp gplp; do
    profile=()
    case $s in lp-*|gp|lpgp|gplp) profile=(--pin-profile="$WORK/pair.profile") ;; esac
    run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -N2 -n2 -c2 --pin-strategy="$s" "${profile[@]}" "$(omp)"
    [ "$status" -eq 0 ] || { echo "$s: $stderr"; false; }
    for r in 0 1; do
      [ "$(thread_cpus "$r" | tr ' ' '\n' | sort -u | wc -l)" -eq 2 ] || { echo "$s rank $r: $(thread_cpus "$r")"; false; }
    done
  done
}

@test "a placement file swaps what Slurm's task/affinity bound, on each node" {
  run --separate-stderr as_user env OMP_NUM_THREADS=1 srun -N2 -n4 -c1 --pin-strategy="file:$WORK/swap.placement" "$(omp)"
  [ "$status" -eq 0 ]
  for r in 0 2; do [ "$(thread_cpus "$r")" = 1 ]; done
  for r in 1 3; do [ "$(thread_cpus "$r")" = 0 ]; done
}

@test "sbatch: inner steps are pinned inside their cgroup, the batch shell is not" {
  cat >"$WORK/inner.sh" <<EOF
#!/bin/bash
echo "shell mask \$(grep Cpus_allowed_list /proc/self/status | cut -f2) places=\${OMP_PLACES:-unset}"
OMP_NUM_THREADS=1 srun -n2 -c1 $(omp)
EOF
  chmod 755 "$WORK/inner.sh"
  run as_user sbatch --wait -N1 -n2 -c1 --pin-strategy=scatter -o "$WORK/inner.out" "$WORK/inner.sh"
  [ "$status" -eq 0 ]
  output=$(cat "$WORK/inner.out")
  grep -q "^shell mask 0-1 places=unset$" <<<"$output"
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 1 ]
}

@test "--exclusive steps and a 1-CPU step beside another job stay on their own CPUs" {
  # A job holding CPU 0 of n1 (its first core), and a one-CPU job beside it.
  as_user sbatch -w n1 -n1 -c1 -o /dev/null --wrap 'sleep 30' >/dev/null
  for _ in $(seq 50); do squeue -h -t R | grep -q . && break; sleep 0.2; done
  run --separate-stderr as_user srun -w n1 -n1 -c1 --pin-strategy=compact sh -c \
    "echo \$(grep Cpus_allowed_list /proc/self/status | cut -f2) \$($cgroup_cpus_probe) \$OMP_PLACES"
  [ "$status" -eq 0 ]
  set -- $output
  [ "$1" = "$2" ]
  [ "$3" = "{$1}" ]
  scancel -u "$TEST_USER"
  # Two --exclusive steps of one job side by side: one CPU each.
  cat >"$WORK/exclusive.sh" <<'EOF'
#!/bin/bash
for i in 1 2; do
  srun --exclusive -n1 -c1 --pin-strategy=compact sh -c 'sleep 1; grep Cpus_allowed_list /proc/self/status | cut -f2' &
done
wait
EOF
  chmod 755 "$WORK/exclusive.sh"
  run as_user sbatch --wait -w n1 -n2 -c1 -o "$WORK/exclusive.out" "$WORK/exclusive.sh"
  [ "$status" -eq 0 ]
  [ "$(sort "$WORK/exclusive.out" | tr '\n' ' ')" = "0 1 " ]
}

@test "--cpu-bind beside a strategy: one warning, slurm-pin's binding, SLURM_CPU_BIND tells it" {
  run --separate-stderr as_user srun -n2 -c1 --cpu-bind=map_cpu:0,1 --pin-strategy="file:$WORK/swap.placement" \
    sh -c 'echo "$SLURM_LOCALID $(grep Cpus_allowed_list /proc/self/status | cut -f2) $SLURM_CPU_BIND"'
  [ "$status" -eq 0 ]
  [ "$(grep -c 'replaces --cpu-bind=map_cpu:0,1' <<<"$stderr")" -eq 1 ]
  grep -q '^0 1 quiet,mask_cpu:0x2,0x1$' <<<"$output"
  grep -q '^1 0 quiet,mask_cpu:0x2,0x1$' <<<"$output"
}

@test "scontrol reconfigure and a slurmd restart under a running pinned job: it keeps its binding, new steps are pinned" {
  cat >"$WORK/long.sh" <<'EOF'
#!/bin/bash
srun -n1 -c2 --pin-strategy=scatter sh -c 'sleep 6; echo "after $OMP_PLACES $(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
srun -n1 -c2 --pin-strategy=compact sh -c 'echo "next $OMP_PLACES"'
EOF
  chmod 755 "$WORK/long.sh"
  job=$(as_user sbatch --parsable -w n1 -n1 -c2 -o "$WORK/long.out" "$WORK/long.sh")
  for _ in $(seq 50); do squeue -h -j "$job" -t R | grep -q . && break; sleep 0.2; done
  sleep 1
  scontrol reconfigure
  kill "$(cat "$CLUSTER/run/slurmd-n1.pid")"
  for _ in $(seq 50); do kill -0 "$(cat "$CLUSTER/run/slurmd-n1.pid")" 2>/dev/null || break; sleep 0.1; done
  "$LOCAL_CLUSTER" start-node "$CLUSTER" n1
  for _ in $(seq 200); do squeue -h -j "$job" | grep -q . || break; sleep 0.2; done
  grep -q '^after {0},{1} 0-1$' "$WORK/long.out"
  grep -q '^next {0},{1}$' "$WORK/long.out"
  node_is_idle
}

# A profile of 128 threads with 300 parallel regions, each its own matrix:
# placing them all takes the helper some tens of MiB.
many_regions_profile() {
  awk 'BEGIN { srand(1); print "slurm-pin-profile 1"; print "threads 128"
    for (r = -1; r < 300; ++r) {
      if (r >= 0) print "region r" r
      print "matrix simple"
      for (i = 0; i < 128; ++i) { row = ""; for (j = 0; j < 128; ++j) row = row (j ? " " : "") (i == j ? 0 : int(rand() * 9) + 1); print row }
    } }' >"$WORK/regions.profile"
  chmod 644 "$WORK/regions.profile"
}

@test "the placing helper counts against the step's memory: a step too small for its placement fails with one line naming --mem" {
  many_regions_profile
  placing=(-w n1 -n1 -c2 --pin-strategy=lp-compact --pin-profile="$WORK/regions.profile" --pin-phases --pin-oversubscribe)
  # The step's memory cgroup is what --mem says (above Slurm's MinRAMSpace).
  run --separate-stderr as_user srun -w n1 -n1 -c2 --mem=256 sh -c \
    'cat /sys/fs/cgroup/memory$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)/../memory.limit_in_bytes'
  [ "$status" -eq 0 ] && [ "$output" -eq $((256 << 20)) ] || { echo "$status $output $stderr"; false; }
  # Placing 300 regions does not fit in 8 MiB: the step fails before any task runs.
  run --separate-stderr as_user env OMP_NUM_THREADS=128 srun --mem=8 "${placing[@]}" "$(omp)"
  [ "$status" -ne 0 ]
  [ -z "$output" ]
  # One line of slurm-pin's (Slurm's prefix before it differs by version).
  said=$(srun_said | grep -v 'srun: error: n1: task 0: Exited with exit code 1')
  [ "$(grep -c . <<<"$said")" -eq 1 ] || { echo "$said"; false; }
  [[ "$said" == *"n1: slurm-pin: placing this step needs more memory than the step has on this node (8 MiB): give it more (--mem, --mem-per-cpu)"* ]] ||
    { echo "$said"; false; }
  node_is_idle
  # With memory enough it is placed; an ordinary step fits in 8 MiB.
  run --separate-stderr as_user env OMP_NUM_THREADS=128 srun --mem=256 "${placing[@]}" "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(grep -c '^rank 0 thread ' <<<"$output")" -eq 128 ] || { echo "$output" | head; false; }
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -w n1 -n1 -c2 --mem=8 --pin-strategy=compact --pin-verbose "$(omp)"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  claims_are_real
}
