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

@test "a profile's rank traffic orders each node's tasks by their global ranks (two Nehalem nodes, dry run)" {
  export SLURM_PIN_NODES="n1=$TOPO/nehalem-smt.xml n2=$TOPO/nehalem-smt.xml"
  slurm_up task/none
  unset SLURM_PIN_NODES
  local profile=$FIXTURES/profiles/ranks8_pairs.profile xml=$TOPO/nehalem-smt.xml
  run --separate-stderr as_user srun -N2 -n8 -c4 --pin-strategy=compact --pin-profile="$profile" --pin-dryrun true
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  # Ranks 0-3 on n1 and 4-7 on n2 (block): heavy pairs (0,2) (1,3) and
  # (4,6) (5,7), each on one socket, as the engine places those ranks.
  local node first t got want block
  for node in n1:0-3 n2:4-7; do
    first=${node#*:}
    want=$("$SLURM_PIN" place --topology "$xml" --tasks 4 --strategy compact --profile "$profile" \
      --task-ranks "$first" --job-tasks 8 --format omp)
    block=$("$SLURM_PIN" place --topology "$xml" --tasks 4 --strategy compact --format omp)
    [ "$want" != "$block" ]
    for t in 0 1 2 3; do
      got=$(sed -nE "s/^slurm-pin: dry run: ${node%%:*} task $t \(rank [0-9]+\).* places ([^ ]+), mem .*/\1/p" <<<"$stderr")
      [ "$got" = "$(sed -n "$((t + 1))p" <<<"$want")" ] || { echo "${node%%:*} task $t: srun $got; engine: $want"; false; }
    done
  done
  # A job of another size: one note, block order.
  run --separate-stderr as_user srun -N1 -n4 -c4 --pin-strategy=compact --pin-profile="$profile" --pin-verbose --pin-dryrun true
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(grep -c "rank traffic is of 8 ranks but the job has 4 tasks" <<<"$stderr")" -eq 1 ] || { echo "$stderr"; false; }
  for t in 0 1 2 3; do  # the tasks' lines come in any order
    got=$(sed -nE "s/^slurm-pin: dry run: .* task $t \(rank [0-9]+\).* places ([^ ]+), mem .*/\1/p" <<<"$stderr")
    [ "$got" = "$(sed -n "$((t + 1))p" <<<"$block")" ] || { echo "task $t: srun $got; block: $block"; false; }
  done
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

@test "--pin-gpu=closest: each task gets the GPUs nearest it and CPUs near them (2 sockets x 4 GPUs)" {
  local xml=$TOPO/gpu-dgx1.xml
  fake_node "$xml"
  run --separate-stderr as_user srun -n8 -c10 --pin-strategy=compact --pin-gpu=closest --pin-dryrun true
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  # As the engine's CLI computes it for the same CPUs.
  want=$("$SLURM_PIN" place --topology "$xml" --tasks 8 --strategy compact --gpu closest | sed -n '/^task  cpus/,/^$/p')
  for t in $(seq 0 7); do
    line=$(grep "task $t (rank $t)" <<<"$stderr")
    [[ "$line" == *", gpu $t (cuda$t), nic mlx5_"* ]] || { echo "$line"; false; }
    cpus=$(sed -nE 's/.* on CPUs ([0-9,-]+), places .*/\1/p' <<<"$line")
    grep -qE "^$t +$cpus +$t \\(cuda$t\\)" <<<"$want" || { echo "task $t: srun $cpus; engine: $want"; false; }
  done
  # The GPUs Slurm gave the job (CUDA_VISIBLE_DEVICES as Slurm sets it; with
  # ConstrainDevices the job's names are 0,1 and SLURM_STEP_GPUS the node's).
  # Whole-node steps (-c40), so that both sockets are the step's.
  run --separate-stderr as_user env CUDA_VISIBLE_DEVICES=6,1 srun -n2 -c40 --pin-strategy=compact --pin-gpu=closest \
    --pin-dryrun true
  [[ "$(grep 'task 0 ' <<<"$stderr")" == *"on CPUs 0-19,40-59"*", gpu 1 (cuda1)"* ]] || { echo "$stderr"; false; }
  [[ "$(grep 'task 1 ' <<<"$stderr")" == *"on CPUs 20-39,60-79"*", gpu 6 (cuda6)"* ]] || { echo "$stderr"; false; }
  # The job's names for its GPUs are kept: 0,1 are the node's 7 and 2 here.
  run --separate-stderr as_user env CUDA_VISIBLE_DEVICES=0,1 SLURM_STEP_GPUS=7,2 srun -n2 -c40 --pin-gpu=closest \
    --pin-strategy=compact --pin-dryrun true
  [[ "$(grep 'task 0 ' <<<"$stderr")" == *"on CPUs 0-19,40-59"*", gpu 1 (cuda2)"* ]] || { echo "$stderr"; false; }
  [[ "$(grep 'task 1 ' <<<"$stderr")" == *"on CPUs 20-39,60-79"*", gpu 0 (cuda7)"* ]] || { echo "$stderr"; false; }
  # The site's default (gpu=closest) applies to jobs Slurm gave GPUs only.
  set_plugstack topology="$xml" gpu=closest
  run --separate-stderr as_user env CUDA_VISIBLE_DEVICES=3 srun -n1 -c10 --pin-strategy=compact --pin-dryrun true
  [[ "$stderr" == *", gpu 3 (cuda3)"* ]] || { echo "$stderr"; false; }
  run --separate-stderr as_user srun -n1 -c10 --pin-strategy=compact --pin-dryrun true
  [[ "$stderr" != *", gpu"* ]] || { echo "$stderr"; false; }
  run --separate-stderr as_user env CUDA_VISIBLE_DEVICES=3 srun -n1 -c10 --pin-strategy=compact --pin-gpu=none --pin-dryrun true
  [[ "$stderr" != *", gpu"* ]] || { echo "$stderr"; false; }
  # A GPU the node does not have: one error per task, nothing runs.
  run --separate-stderr as_user env CUDA_VISIBLE_DEVICES=9 srun -n1 -c10 --pin-strategy=compact --pin-dryrun true
  [ "$status" -ne 0 ]
  grep -q 'slurm-pin: CUDA_VISIBLE_DEVICES names GPU 9 but this node has 8 GPUs' <<<"$stderr" || { echo "$stderr"; false; }
  # Slurm's GPU lists as a user can forge them (srun passes its environment
  # on): read by the plugin, not the engine; an empty step list falls back
  # to the job's, and what is no GPU of the node, or too long, is one error.
  run --separate-stderr as_user env SLURM_STEP_GPUS= SLURM_JOB_GPUS=3 srun -n1 -c10 --pin-strategy=compact \
    --pin-gpu=closest --pin-dryrun true
  [[ "$stderr" == *", gpu 3 (cuda3)"* ]] || { echo "$stderr"; false; }
  run --separate-stderr as_user env SLURM_STEP_GPUS=9 srun -n1 -c10 --pin-strategy=compact --pin-gpu=closest \
    --pin-dryrun true
  [ "$status" -ne 0 ]
  grep -q 'slurm-pin: CUDA_VISIBLE_DEVICES names GPU 9 but this node has 8 GPUs' <<<"$stderr" || { echo "$stderr"; false; }
  run --separate-stderr as_user env SLURM_STEP_GPUS=a,b srun -n1 -c10 --pin-strategy=compact --pin-gpu=closest \
    --pin-dryrun true
  [ "$status" -ne 0 ]
  grep -q "slurm-pin: CUDA_VISIBLE_DEVICES names GPU 'a', which slurm-pin cannot match" <<<"$stderr" || { echo "$stderr"; false; }
  run --separate-stderr as_user env SLURM_STEP_GPUS="$(printf '1,%.0s' $(seq 5000))1" srun -n1 -c10 \
    --pin-strategy=compact --pin-gpu=closest --pin-dryrun true
  [ "$status" -ne 0 ]
  grep -q 'slurm-pin: SLURM_STEP_GPUS is too long to be a list of GPUs' <<<"$stderr" || { echo "$stderr"; false; }
  run --separate-stderr as_user srun -n1 --pin-strategy=compact --pin-gpu=nearest true
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--pin-gpu: unknown GPU mode 'nearest': use closest or none"
}

@test "--pin-gpu=closest on one NUMA node per GPU: blocks of GPUs, shared GPUs, ROCR_VISIBLE_DEVICES" {
  fake_node "$TOPO/gpu-nps4.xml"
  run --separate-stderr as_user srun -n4 -c16 --pin-strategy=scatter --pin-gpu=closest --pin-dryrun true
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$(grep 'task 2 ' <<<"$stderr")" == *"on CPUs 32-47"*", gpus 4,5 (rsmi4,rsmi5), nic mlx5_1"* ]] || { echo "$stderr"; false; }
  run --separate-stderr as_user srun -n16 -c4 --pin-strategy=compact --pin-gpu=closest --pin-dryrun true
  [[ "$(grep 'task 5 ' <<<"$stderr")" == *"on CPUs 20-23"*", gpu 2 (rsmi2)"* ]] || { echo "$stderr"; false; }
}
