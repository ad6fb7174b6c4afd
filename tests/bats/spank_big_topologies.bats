#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Big machines on a small one: slurmd sees an hwloc XML (HWLOC_XMLFILE), the
# plugin loads the same XML (topology=), and --pin-dryrun through real srun
# prints the placement, which must equal the engine's for the same CPUs.

load slurm_helpers

teardown() { slurm_down; }

# Starts a cluster whose node is the machine in XML $1.
fake_node() {
  export HWLOC_XMLFILE=$1
  slurm_up task/none topology="$1"
  unset HWLOC_XMLFILE
}

# Compares srun's dry run with `slurm-pin place` on the CPUs the dry run used.
# Arguments: tasks, CPUs per task, threads, strategy, profile (may be empty),
# XML, granularity.
check_dry_run() {
  local tasks=$1 cpt=$2 threads=$3 strategy=$4 profile=$5 xml=$6 gran=${7:-core}
  local popt=()
  [ -n "$profile" ] && popt=(--pin-profile="$profile")
  run --separate-stderr as_user env OMP_NUM_THREADS="$threads" srun -n"$tasks" -c"$cpt" \
    --pin-strategy="$strategy" --pin-granularity="$gran" "${popt[@]}" --pin-dryrun true
  [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
  [ "$(grep -c 'slurm-pin: dry run: ' <<<"$stderr")" -eq "$tasks" ]
  # The step's CPUs: the union of the tasks' shares.
  local shares
  shares=$(sed -nE 's/.*task ([0-9]+) \(rank.* on CPUs ([0-9,-]+), places .*/\2/p' <<<"$stderr" | paste -sd, -)
  local eopt=()
  [ -n "$profile" ] && eopt=(--profile "$profile")
  local expected
  expected=$("$SLURM_PIN" place --topology "$xml" --restrict "$shares" --tasks "$tasks" --threads "$threads" \
    --strategy "$strategy" --granularity "$gran" "${eopt[@]}" --format omp)
  for t in $(seq 0 $((tasks - 1))); do
    got=$(sed -nE "s/.*task $t \\(rank.* places ([^ ]+), mem .*/\\1/p" <<<"$stderr")
    want=$(sed -n "$((t + 1))p" <<<"$expected")
    [ "$got" = "$want" ] || { echo "task $t: srun $got, engine $want"; return 1; }
  done
}

@test "2-socket Nehalem (2 x 4 cores, SMT): compact, scatter, lpgp" {
  fake_node "$TOPO/nehalem-smt.xml"
  [ "$(sinfo -h -o %c)" -eq 16 ]
  # Slurm gives CPUs (hyperthreads); threads go one per core unless pu.
  check_dry_run 2 4 2 compact "" "$TOPO/nehalem-smt.xml"
  check_dry_run 2 4 4 compact "" "$TOPO/nehalem-smt.xml" pu
  check_dry_run 1 16 8 scatter "" "$TOPO/nehalem-smt.xml"
  check_dry_run 1 16 8 lpgp "$FIXTURES/profiles/pairs8.profile" "$TOPO/nehalem-smt.xml"
  check_dry_run 1 8 8 gplp "$FIXTURES/profiles/pairs8.profile" "$TOPO/nehalem-smt.xml" pu
}

@test "4-NUMA-node machine (96 cores): scatter, gplp, lpgp over several tasks" {
  fake_node "$TOPO/ccnuma.xml"
  [ "$(sinfo -h -o %c)" -eq 96 ]
  check_dry_run 4 8 8 scatter "" "$TOPO/ccnuma.xml"
  check_dry_run 2 8 8 gplp "$FIXTURES/profiles/pairs8.profile" "$TOPO/ccnuma.xml"
  check_dry_run 3 8 8 lpgp "$FIXTURES/profiles/pairs8.profile" "$TOPO/ccnuma.xml"
  check_dry_run 1 24 8 gp "$FIXTURES/profiles/pairs8.profile" "$TOPO/ccnuma.xml"
}

@test "one step over two different machines: each node places on its own topology" {
  # No topology= in plugstack.conf: each slurmstepd discovers its node, here
  # the XML its slurmd was given.
  export SLURM_PIN_NODES="n1=$TOPO/nehalem-smt.xml n2=$TOPO/ccnuma.xml"
  slurm_up task/none
  unset SLURM_PIN_NODES
  [ "$(sinfo -h -N -o '%N %c' | tr '\n' ' ')" = "n1 16 n2 96 " ]
  for s in compact scatter lpgp gplp; do
    run --separate-stderr as_user env OMP_NUM_THREADS=8 srun -N2 -n2 -c16 --pin-strategy="$s" \
      --pin-profile="$FIXTURES/profiles/pairs8.profile" --pin-dryrun true
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    local node xml
    for node in n1:nehalem-smt n2:ccnuma; do
      xml=$TOPO/${node#*:}.xml node=${node%:*}
      line=$(grep "^slurm-pin: dry run: $node task 0 " <<<"$stderr")
      cpus=$(sed -nE 's/.* on CPUs ([0-9,-]+), places .*/\1/p' <<<"$line")
      got=$(sed -nE 's/.* places ([^ ]+), mem .*/\1/p' <<<"$line")
      opt=()
      [ "$s" = compact ] || [ "$s" = scatter ] || opt=(--profile "$FIXTURES/profiles/pairs8.profile")
      want=$("$SLURM_PIN" place --topology "$xml" --restrict "$cpus" --threads 8 --strategy "$s" "${opt[@]}" --format omp)
      [ -n "$got" ] && [ "$got" = "$want" ] || { echo "$s on $node: srun $got, engine $want ($stderr)"; false; }
    done
  done
  # The two nodes really differ: Nehalem's places are SMT pairs.
  [[ "$(grep 'n1 task 0' <<<"$stderr")" == *"{0,8}"* ]]
}

@test "--pin-smt=K: K hardware threads of each core, a thread on each (dry run on Nehalem SMT)" {
  fake_node "$TOPO/nehalem-smt.xml"
  for k in 1 2; do
    run --separate-stderr as_user srun -n1 -c16 --pin-strategy=scatter --pin-smt=$k --pin-dryrun true
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    got=$(sed -nE 's/.* places ([^ ]+), mem .*/\1/p' <<<"$stderr")
    want=$("$SLURM_PIN" place --topology "$TOPO/nehalem-smt.xml" --smt $k --strategy scatter --format omp)
    [ "$got" = "$want" ] || { echo "smt $k: srun $got, engine $want"; false; }
    [[ "$stderr" == *"$((8 * k)) threads on CPUs"* ]] || { echo "$stderr"; false; }
  done
  [[ "$want" == "{0},{4},{1},{5},{2},{6},{3},{7},{8},{12}"* ]]
  run --separate-stderr as_user srun -n1 --pin-strategy=compact --pin-smt=0 true
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--pin-smt: smt (hardware threads per core) wants a whole number from 1 to 64, not '0'"
}
