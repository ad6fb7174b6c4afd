#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# srun/sbatch/salloc --pin-* on a real local Slurm (task/none): tasks bound,
# OpenMP threads on their places, environment and memory policy, skipped
# steps, and errors found on the node.

load slurm_helpers

setup_file() { slurm_up task/none; }
teardown_file() { slurm_down; }
setup() { set_plugstack; }

omp() { echo "$WORK/bin/omp_$1"; }

@test "compact: two tasks, each bound to its own CPU, one verbose line each" {
  run --separate-stderr as_user srun -n2 --pin-strategy=compact --pin-verbose "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 1 ]
  [ "$(env_of 0 OMP_PLACES)" = "{0}" ]
  [ "$(env_of 1 OMP_PLACES)" = "{1}" ] || { echo "$output"; false; }
  [ "$(grep -c '^slurm-pin: ' <<<"$stderr")" -eq 2 ]
  node=$(sinfo -h -o %N)
  [[ "$stderr" == *"slurm-pin: $node task 0 (rank 0): strategy compact, 1 thread on CPUs 0, places {0}, mem none"* ]]
  [[ "$stderr" == *"slurm-pin: $node task 1 (rank 1): strategy compact, 1 thread on CPUs 1, places {1}, mem none"* ]]
}

@test "srun and slurm-pin run are one core: the same binding, environment and description" {
  for s in scatter "lpgp --pin-profile=$FIXTURES/profiles/pairs2.profile"; do
    run --separate-stderr as_user srun -n1 -c2 --pin-strategy=$s --pin-verbose "$(omp gomp)"
    [ "$status" -eq 0 ]
    by_srun=$stderr
    srun_env=$(grep -E '^rank 0 (env (OMP_PLACES|OMP_NUM_THREADS|SLURM_PIN_CPUS)=|thread )' <<<"$output" | sort)
    # The same CPUs outside Slurm: those of the step (0-1 on this node).
    run --separate-stderr as_user taskset -c 0-1 "$SLURM_PIN" run --verbose --strategy ${s/--pin-profile=/--profile } \
      -- env SLURM_PROCID=0 "$(omp gomp)"
    [ "$status" -eq 0 ]
    [ "${by_srun#*): }" = "${stderr#slurm-pin: *: }" ] || { echo "srun: $by_srun"; echo "run: $stderr"; false; }
    [ "$srun_env" = "$(grep -E '^rank 0 (env (OMP_PLACES|OMP_NUM_THREADS|SLURM_PIN_CPUS)=|thread )' <<<"$output" | sort)" ]
  done
}

@test "--cpu-bind style: --pin-strategy=verbose,compact" {
  run --separate-stderr as_user srun -n2 --pin-strategy=verbose,compact "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^slurm-pin: .* strategy compact, 1 thread on CPUs' <<<"$stderr")" -eq 2 ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
}

@test "scatter: one task, two OpenMP threads, each on its own CPU (libgomp)" {
  run as_user srun -c2 --pin-strategy=scatter "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = "0 1" ]
  grep -q "^rank 0 thread 0 cpu 0 mask 0$" <<<"$output"
  grep -q "^rank 0 thread 1 cpu 1 mask 1$" <<<"$output"
}

@test "explicit places are absolute CPU ids for libgomp and LLVM libomp" {
  printf 'slurm-pin-placement 1\ntask 0: 1 0\n' >"$WORK/reverse.placement"
  chmod 644 "$WORK/reverse.placement"
  for rt in gomp llvm; do
    [ -x "$(omp $rt)" ] || { echo "omp_$rt not built (install clang and LLVM's libomp: scripts/install-deps)"; return 1; }
    run --separate-stderr as_user srun -c2 --pin-strategy="file:$WORK/reverse.placement" "$(omp $rt)"
    [ "$status" -eq 0 ]
    [ "$(thread_cpus 0)" = "1 0" ]
    [ -z "$(srun_said)" ] || { echo "runtime $rt printed: $stderr"; return 1; }  # no libomp warnings
  done
  # Two tasks: each task's single place is an absolute id inside its own mask.
  printf 'slurm-pin-placement 1\ntask 0: 1\ntask 1: 0\n' >"$WORK/swap.placement"
  chmod 644 "$WORK/swap.placement"
  run as_user srun -n2 --pin-strategy="file:$WORK/swap.placement" "$(omp llvm)"
  [ "$(thread_cpus 0)" = 1 ]
  [ "$(thread_cpus 1)" = 0 ]
}

@test "every strategy through srun: threads on distinct CPUs of the step" {
  store_profile "$FIXTURES/profiles/pairs2.profile" pairs2 2
  for s in compact scatter random lp-compact lp-scatter gp lpgp gplp; do
    run --separate-stderr as_user srun -c2 --pin-strategy=$s --pin-profile=pairs2 "$(omp gomp)"
    [ "$status" -eq 0 ] || { echo "$s: $stderr"; return 1; }
    cpus=$(thread_cpus 0)
    [ "$cpus" = "0 1" ] || [ "$cpus" = "1 0" ] || { echo "$s: threads on $cpus"; return 1; }
    [ "$(env_of 0 SLURM_PIN_STRATEGY)" = "$s" ]
  done
}

@test "lpgp with a profile from the store and from a file" {
  store_profile "$FIXTURES/profiles/pairs2.profile" pairs2 2
  run as_user srun -c2 --pin-strategy=lpgp --pin-profile=pairs2 "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = "0 1" ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = lpgp ]
  run as_user srun -c2 --pin-strategy=lp-compact --pin-profile="$FIXTURES/profiles/pairs2.profile" "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = "0 1" ]
}

@test "environment: OMP_* and SLURM_PIN_* set; OMP_NUM_THREADS kept when the user set it" {
  run as_user srun -c2 --pin-strategy=scatter "$(omp gomp)"
  [ "$(env_of 0 OMP_PROC_BIND)" = close ]
  [ "$(env_of 0 OMP_NUM_THREADS)" = 2 ]
  [ "$(env_of 0 OMP_PLACES)" = "{0},{1}" ]
  [ "$(env_of 0 SLURM_PIN_CPUS)" = "0 1" ]
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = scatter ]
  [ -z "$(env_of 0 KMP_AFFINITY)" ]
  [ -z "$(env_of 0 GOMP_CPU_AFFINITY)" ]
  run as_user env OMP_NUM_THREADS=1 srun -c2 --pin-strategy=scatter "$(omp gomp)"
  [ "$(env_of 0 OMP_NUM_THREADS)" = 1 ]
  [ "$(env_of 0 OMP_PLACES)" = "{0}" ]
  [ "$(thread_cpus 0)" = 0 ]
}

@test "legacy_omp_env also exports GOMP_CPU_AFFINITY and KMP_AFFINITY" {
  set_plugstack legacy_omp_env
  run as_user srun -c2 --pin-strategy=scatter "$(omp gomp)"
  [ "$(env_of 0 GOMP_CPU_AFFINITY)" = "0 1" ]
  [ "$(env_of 0 KMP_AFFINITY)" = "explicit,proclist=[0,1]" ]
  [ "$(thread_cpus 0)" = "0 1" ]
}

@test "memory policy: interleave and local" {
  run as_user srun --pin-strategy=compact --pin-mem=interleave "$(omp gomp)"
  grep -q "^rank 0 mempolicy interleave$" <<<"$output"
  run as_user srun --pin-strategy=compact --pin-mem=local "$(omp gomp)"
  grep -qE "^rank 0 mempolicy (local|preferred)$" <<<"$output"
  run as_user srun --pin-strategy=compact "$(omp gomp)"
  grep -q "^rank 0 mempolicy default$" <<<"$output"
}

@test "granularity: threads bound loosely to their NUMA node, or to one PU" {
  run as_user srun -c2 --pin-strategy=scatter --pin-granularity=numa "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(env_of 0 OMP_PLACES)" = "{0,1},{0,1}" ]
  grep -q "^rank 0 thread 1 cpu [01] mask 0,1$" <<<"$output"
  run as_user srun -c2 --pin-strategy=compact --pin-granularity=pu "$(omp gomp)"
  [ "$(thread_cpus 0)" = "0 1" ]
}

@test "dry run prints the placement and binds nothing" {
  run --separate-stderr as_user srun -n2 --pin-strategy=compact --pin-dryrun "$(omp gomp)"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"slurm-pin: dry run: "*"task 0 (rank 0): strategy compact, 1 thread on CPUs 0, places {0}"* ]]
  grep -q "^rank 0 thread 0 cpu [01] mask 0,1$" <<<"$output"
  [ -z "$(env_of 0 OMP_PLACES)" ]
}

@test "none and no option leave tasks alone" {
  for opt in --pin-strategy=none ""; do
    run as_user srun -n1 $opt "$(omp gomp)"
    [ "$status" -eq 0 ]
    grep -q "^rank 0 thread 0 cpu [01] mask 0,1$" <<<"$output"
    [ -z "$(env_of 0 SLURM_PIN_STRATEGY)" ]
  done
}

@test "sbatch: inner steps are pinned, the batch shell is not and leaks no OMP_*" {
  cat >"$WORK/job.sh" <<JOB
#!/bin/bash
echo "batch mask \$(grep Cpus_allowed_list /proc/self/status | cut -f2) places [\${OMP_PLACES:-}]"
srun -n2 $(omp gomp)
JOB
  chmod 755 "$WORK/job.sh"
  run as_user sbatch --wait -n2 -o "$WORK/job.out" --pin-strategy=compact "$WORK/job.sh"
  [ "$status" -eq 0 ]
  output=$(cat "$WORK/job.out")
  grep -q "^batch mask 0-1 places \[\]$" <<<"$output"
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 1 ]
}

@test "salloc: steps inside the allocation are pinned" {
  run as_user salloc -n2 --pin-strategy=compact srun -n2 "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 1 ]
}

@test "the site default applies when the user chooses nothing; verbose= prints every binding" {
  set_plugstack default=compact verbose
  run --separate-stderr as_user srun -n2 "$(omp gomp)"
  [ "$(env_of 1 SLURM_PIN_STRATEGY)" = compact ]
  [ "$(thread_cpus 1)" = 1 ]
  [ "$(grep -c '^slurm-pin: .* strategy compact, 1 thread on CPUs' <<<"$stderr")" -eq 2 ]
}

@test "exclusive_only: only whole-node jobs are pinned" {
  set_plugstack default=compact exclusive_only
  run as_user srun -n1 "$(omp gomp)"
  [ -z "$(env_of 0 SLURM_PIN_STRATEGY)" ]
  run as_user srun -n1 --exclusive "$(omp gomp)"
  [ "$(env_of 0 SLURM_PIN_STRATEGY)" = compact ]
}

@test "whole_node: a one-task step of a whole-node job uses every CPU, as mpibind" {
  # Slurm gives `srun --exclusive -n1` one core of the node its job holds.
  run as_user srun -n1 --exclusive --pin-strategy=compact "$(omp gomp)"
  [ "$(thread_cpus 0)" = 0 ]
  set_plugstack whole_node
  run --separate-stderr as_user srun -n1 --exclusive --pin-strategy=compact --pin-verbose "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = "0 1" ] || { echo "$output"; false; }
  [ "$(env_of 0 SLURM_PIN_CPUS)" = "0 1" ]
  [[ "$stderr" == *"strategy compact, 2 threads on CPUs 0-1, places {0},{1}"* ]] || { echo "$stderr"; false; }
  # Not for a job that shares the node, nor for a step of several tasks.
  run as_user srun -n1 -c1 --pin-strategy=compact "$(omp gomp)"
  [ "$(thread_cpus 0)" = 0 ]
  run as_user srun -n2 --exclusive --pin-strategy=compact "$(omp gomp)"
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 1 ]
}

# Errors only the node can see: one slurmstepd line per task, the step
# fails, nothing runs half-bound, the node stays up.
step_fails() {
  run --separate-stderr as_user "$@" "$(omp gomp)"
  [ "$status" -ne 0 ] || { echo "step succeeded: $output"; return 1; }
  ! grep -q "^rank .* thread" <<<"$output" || { echo "the program ran: $output"; return 1; }
  node_is_idle
}

@test "more threads than CPUs share them, with a verbose note; with oversubscribe=error the step fails cleanly" {
  run --separate-stderr as_user env OMP_NUM_THREADS=3 srun -c2 --pin-strategy=compact --pin-verbose "$(omp gomp)"
  [ "$status" -eq 0 ]
  [ "$(thread_cpus 0)" = "0 0 1" ]  # neighbours together, as reported
  [[ "$stderr" == *"note: 3 threads per task on 2 cores (oversubscribed): threads share them, neighbours together"* ]]
  set_plugstack oversubscribe=error
  step_fails env OMP_NUM_THREADS=3 srun -c2 --pin-strategy=compact
  # The node named in slurm-pin's own text: Slurm 25.05 and later no longer
  # prefix slurmstepd's lines with it.
  [[ "$stderr" == *"error: $(sinfo -h -o %N): slurm-pin: 3 threads per task but each task has only 2 cores"* ]]
  [ "$(grep -Eci 'slurm-pin|spank' <<<"$stderr")" -eq 1 ]  # our line only, no spank stack noise
  set_plugstack
}

@test "more tasks than CPUs, when Slurm oversubscribes (-O): spread evenly over the step's CPUs, as reported" {
  # A step of 3 tasks in a job of 2 CPUs (srun -O outside a job asks for an
  # allocation Slurm 24.11 never grants).
  printf '#!/bin/bash\nsrun -n3 -O --pin-strategy=compact --pin-verbose %s\n' "$(omp gomp)" >"$WORK/overcommit.sh"
  chmod 755 "$WORK/overcommit.sh"
  run as_user timeout 120 sbatch --wait -N1 -n2 -c1 -o "$WORK/overcommit.out" "$WORK/overcommit.sh"
  [ "$status" -eq 0 ] || { cat "$WORK/overcommit.out"; false; }
  output=$(cat "$WORK/overcommit.out")
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 0 ]
  [ "$(thread_cpus 2)" = 1 ]
  [[ "$output" == *"note: 3 tasks on 2 cores (oversubscribed): neighbouring tasks share a core"* ]]
  node_is_idle
}

@test "a non-numeric OMP_NUM_THREADS fails the step cleanly" {
  step_fails env OMP_NUM_THREADS=many srun --pin-strategy=compact
  [[ "$stderr" == *"slurm-pin: OMP_NUM_THREADS='many' is not a thread count"* ]]
}

@test "a placement using CPUs outside the allocation fails the step cleanly" {
  # The step has one CPU; the file asks for both.
  printf 'slurm-pin-placement 1\ntask 0: 0 1\n' >"$WORK/both.placement"
  chmod 644 "$WORK/both.placement"
  step_fails srun -n1 -c1 --pin-strategy="file:$WORK/both.placement"
  [[ "$stderr" =~ "slurm-pin: $WORK/both.placement: task 0 thread "[01]" uses CPU "[01]", outside the allowed CPUs "[01] ]]
}

@test "a store profile for another thread count fails the step, naming the counts it has" {
  store_profile "$FIXTURES/profiles/pairs8.profile" eight 8
  step_fails srun -c2 --pin-strategy=lpgp --pin-profile=eight
  # The advice never leads to a crowded step without saying so.
  [[ "$stderr" == *"profile 'eight' has no 2-thread profile (it has 8): profile at 2 threads; a profile of 8 threads would run more threads than each task's 2 CPUs, which then take turns"* ]]
}

@test "a topology file that does not describe the node fails the step cleanly" {
  set_plugstack topology="$TOPO/ccnuma.xml"
  step_fails srun --pin-strategy=compact
  [[ "$stderr" == *"topology $TOPO/ccnuma.xml describes CPUs 0-95 but this node has CPUs 0-1"* ]]
}

# This machine as one core holding every online CPU, as hwloc XML.
one_core_xml() {
  local n
  n=$(getconf _NPROCESSORS_ONLN)
  [ "$(cat /sys/devices/system/cpu/online)" = "0-$((n - 1))" ] || skip "needs CPUs 0-N online"
  lstopo-no-graphics --input "pack:1 core:1 pu:$n" --of xml "$1"
}

@test "slurmd saves the node topology once; steps read it instead of discovering, if root's and right" {
  cache=$CLUSTER/node-topology.xml
  [ "$(stat -c '%u %a' "$cache")" = "0 644" ]  # written by slurmd as it started
  cp "$cache" "$CLUSTER/saved.xml"
  # What the steps see is the cache: one core of 2 PUs makes Slurm's core 0
  # both CPUs, where the machine (one PU per core) makes it CPU 0.
  one_core_xml "$cache.new" && mv "$cache.new" "$cache"
  run --separate-stderr as_user srun -n1 -c1 --pin-strategy=compact --pin-verbose true
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"1 thread on CPUs 0-1,"* ]] || { echo "$stderr"; cp "$CLUSTER/saved.xml" "$cache"; false; }
  # Someone else's file, or one others may write, is not trusted: discovered.
  chown "$TEST_USER" "$cache"
  run --separate-stderr as_user srun -n1 -c1 --pin-strategy=compact --pin-verbose true
  [[ "$stderr" == *"1 thread on CPUs 0,"* ]] || { echo "$stderr"; cp "$CLUSTER/saved.xml" "$cache"; false; }
  chown root "$cache" && chmod 666 "$cache"
  run --separate-stderr as_user srun -n1 -c1 --pin-strategy=compact --pin-verbose true
  cp "$CLUSTER/saved.xml" "$cache" && chmod 644 "$cache"
  [[ "$stderr" == *"1 thread on CPUs 0,"* ]] || { echo "$stderr"; false; }
}

@test "srun loads the placement engine only to read a file: not for option values or store names" {
  run --separate-stderr as_user env LD_DEBUG=libs srun -n1 true
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"slurm_pin.so"* ]]  # the plugin is loaded...
  [[ "$stderr" != *"libslurmpin"* ]] || false  # ...its engine is not
  # Option values and a store name are checked in plain C (slurm_pin_options.h).
  store_profile "$FIXTURES/profiles/pairs2.profile" pairs 2
  run --separate-stderr as_user env LD_DEBUG=libs srun -n1 -c2 --pin-strategy=verbose,lpgp --pin-profile=pairs \
    --pin-mem=local --pin-granularity=core true
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"slurm_pin.so"* ]]
  [[ "$stderr" != *"libslurmpin"* ]] || false
  # A profile file is read through the engine.
  run --separate-stderr as_user env LD_DEBUG=libs srun -n1 -c2 --pin-strategy=lpgp \
    --pin-profile="$FIXTURES/profiles/pairs2.profile" true
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"libslurmpin_frontend.so"* ]]
}

@test "slurmstepd never loads the engine (the placing helper does); hwloc's plugins off for slurmd: the same binding" {
  cache=$CLUSTER/node-topology.xml
  cp "$cache" "$CLUSTER/with-plugins.xml"
  run --separate-stderr as_user srun -n2 --pin-strategy=compact --pin-verbose true
  [ "$status" -eq 0 ]
  # Each task's line, in task order: the two tasks write to srun at once.
  with=$(srun_said | sort)
  # The placed step's slurmstepd does not hold the engine: it lived in the
  # helper, gone before the task started.
  mapped=$(stepd_engine_maps --pin-strategy=compact)
  [ -z "$mapped" ] || { echo "mapped in slurmstepd: $mapped"; false; }
  # Nor for options whose values the engine checks (again, in the helper).
  mapped=$(stepd_engine_maps --pin-strategy=compact --pin-mem=local --pin-granularity=core --pin-smt=1 --pin-gpu=closest \
    --pin-verbose)
  [ -z "$mapped" ] || { echo "mapped in slurmstepd: $mapped"; false; }
  # A site that turns hwloc's plugins off for slurmd itself (its own
  # topology, saved for the steps): the same binding, the same topology.
  off="hwloc_opencl hwloc_gl hwloc_xml_libxml hwloc_pci"
  HWLOC_PLUGINS_BLACKLIST=$(tr ' ' , <<<"$off") "$LOCAL_CLUSTER" restart-slurmd "$CLUSTER"
  run --separate-stderr as_user srun -n2 --pin-strategy=compact --pin-verbose true
  cp "$cache" "$CLUSTER/without-plugins.xml"
  "$LOCAL_CLUSTER" restart-slurmd "$CLUSTER"
  [ "$status" -eq 0 ]
  [ "$(srun_said | sort)" = "$with" ] || { printf 'with the plugins:\n%s\nwithout:\n%s\n' "$with" "$(srun_said)"; false; }
  # The same topology, but for the names hwloc 2.15 and later give PCI
  # devices from the PCI ID database (a plugin of the first run may have
  # named one the second did not).
  cmp <(pci_names_out "$CLUSTER/with-plugins.xml") <(pci_names_out "$CLUSTER/without-plugins.xml")
}

pci_names_out() { grep -Ev '<info name="PCI(Vendor|Device)" ' "$1"; }
