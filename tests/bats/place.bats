#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# `slurm-pin place`: every strategy and format, end to end through the CLI.

load helpers
bats_require_minimum_version 1.5.0

place_json() {
  run "$SLURM_PIN" place --format json "$@"
  expect_status 0
}

# The PUs of task $1 as a comma-separated list.
pus_of_task() {
  jq -r ".tasks[$1].threads | map(.pu|tostring) | join(\",\")" <<<"$output"
}

@test "compact on Core2 fills each L2 pair first" {
  place_json --topology "$TOPO/core2.xml" --strategy compact --threads 8
  [ "$(pus_of_task 0)" = "0,1,2,3,4,5,6,7" ]
}

@test "scatter on Core2 alternates packages, then L2s" {
  place_json --topology "$TOPO/core2.xml" --strategy scatter --threads 8
  [ "$(pus_of_task 0)" = "0,4,2,6,1,5,3,7" ]
}

@test "scatter on the 4-NUMA machine visits every NUMA node first" {
  place_json --topology "$TOPO/ccnuma.xml" --strategy scatter --threads 4
  [ "$(pus_of_task 0)" = "0,24,48,72" ]
}

@test "random is reproducible with --seed and reports the seed" {
  place_json --topology "$TOPO/ccnuma.xml" --strategy random --threads 16 --seed 7
  first=$(pus_of_task 0)
  [ "$(jq .seed <<<"$output")" = 7 ]
  place_json --topology "$TOPO/ccnuma.xml" --strategy random --threads 16 --seed 7
  [ "$(pus_of_task 0)" = "$first" ]
  place_json --topology "$TOPO/ccnuma.xml" --strategy random --threads 16 --seed 8
  [ "$(pus_of_task 0)" != "$first" ]
}

@test "none binds nothing" {
  place_json --topology "$TOPO/core2.xml" --strategy none --threads 2
  [ "$(jq '.tasks[0].threads[0].pu' <<<"$output")" = null ]
  [ "$(jq -r '.tasks[0].threads[0].cpus' <<<"$output")" = "0-7" ]
}

@test "lp-compact puts each designed pair on one L2" {
  place_json --topology "$TOPO/core2.xml" --strategy lp-compact --matrix "$MATRICES/pairs8.txt"
  for p in "0 4" "1 5" "2 6" "3 7"; do
    set -- $p
    a=$(jq ".tasks[0].threads[$1].pu" <<<"$output")
    b=$(jq ".tasks[0].threads[$2].pu" <<<"$output")
    [ $((a / 2)) -eq $((b / 2)) ]
  done
}

@test "lp-scatter spreads the designed pairs over both packages" {
  place_json --topology "$TOPO/core2.xml" --strategy lp-scatter --matrix "$MATRICES/pairs8.txt"
  [ "$(jq '.tasks[0].threads[0].pu' <<<"$output")" = 0 ]
  [ "$(jq '.tasks[0].threads[4].pu' <<<"$output")" = 1 ]
  [ "$(jq '.tasks[0].threads[1].pu' <<<"$output")" = 4 ]
  [ "$(jq '.tasks[0].threads[5].pu' <<<"$output")" = 5 ]
}

@test "gp, lpgp and gplp keep the designed groups in one package and pairs in one L2" {
  for s in gp lpgp gplp; do
    place_json --topology "$TOPO/core2.xml" --strategy $s --matrix "$MATRICES/pairs8.txt"
    pkg=$(jq '.score.levels[] | select(.level=="Package") | .fraction' <<<"$output")
    l2=$(jq '.score.levels[] | select(.level=="L2") | .fraction' <<<"$output")
    # w = a + a^T: pairs 4 x 200, groups add 8 x 60, the 16 other pairs 2 each: 1312.
    [ "$(jq -n "$l2 * 1312 | round")" = 800 ]
    [ "$(jq -n "$pkg * 1312 | round")" = 1280 ]
  done
}

@test "profile-guided strategies accept a profile file" {
  place_json --topology "$TOPO/core2.xml" --strategy lpgp --profile "$FIXTURES/profiles/pairs8.profile"
  [ "$(jq '.tasks[0].threads | length' <<<"$output")" = 8 ]
  place_json --topology "$TOPO/core2.xml" --strategy lp-compact --profile "$FIXTURES/profiles/pairs8.profile" \
    --region phase2
  a=$(jq '.tasks[0].threads[0].pu' <<<"$output")
  b=$(jq '.tasks[0].threads[1].pu' <<<"$output")
  [ $((a / 2)) -eq $((b / 2)) ]
}

@test "several tasks split the CPUs first, scatter layout spreads them" {
  place_json --topology "$TOPO/core2.xml" --strategy compact --tasks 2 --threads 2 --restrict 0-3,4-7
  [ "$(jq -r '.tasks[0].cpus' <<<"$output")" = "0-3" ]
  [ "$(jq -r '.tasks[1].cpus' <<<"$output")" = "4-7" ]
  # Scatter deals the even split's shares over the packages: every core used.
  place_json --topology "$TOPO/core2.xml" --strategy compact --tasks 3 --threads 2 --task-layout scatter
  [ "$(jq -r '[.tasks[].cpus] | join(" ")' <<<"$output")" = "0-2 6-7 3-5" ]
  place_json --topology "$TOPO/core2.xml" --strategy compact --tasks 4 --threads 2 --task-layout scatter
  [ "$(jq -r '[.tasks[].cpus] | join(" ")' <<<"$output")" = "0-1 4-5 2-3 6-7" ]
}

@test "a restricted, non-contiguous CPU set is never left" {
  for s in compact scatter random lpgp; do
    place_json --topology "$TOPO/ccnuma.xml" --restrict 1,3,5,30-35,90 --strategy $s --threads 8 \
      --matrix "$MATRICES/pairs8.txt"
    for pu in $(jq '.tasks[0].threads[].pu' <<<"$output"); do
      [[ " 1 3 5 30 31 32 33 34 35 90 " == *" $pu "* ]]
    done
  done
}

@test "SMT: cores by default, PUs with --granularity pu" {
  place_json --topology "$TOPO/nehalem-smt.xml" --strategy compact --threads 2
  [ "$(jq -r '.tasks[0].threads[0].cpus' <<<"$output")" = "0,8" ]
  place_json --topology "$TOPO/nehalem-smt.xml" --strategy compact --threads 2 --granularity pu
  [ "$(pus_of_task 0)" = "0,8" ]
  place_json --topology "$TOPO/nehalem-smt.xml" --strategy compact --threads 1 --granularity l3
  [ "$(jq -r '.tasks[0].threads[0].cpus' <<<"$output")" = "0-3,8-11" ]
}

@test "oversubscription doubles up only when asked" {
  place_json --topology "pack:1 core:2 pu:1" --strategy compact --threads 4 --oversubscribe
  [ "$(pus_of_task 0)" = "0,0,1,1" ]
}

@test "synthetic topologies and the real machine load" {
  place_json --topology "pack:2 l3:1 core:4 pu:1" --strategy scatter --threads 2
  [ "$(pus_of_task 0)" = "0,4" ]
  place_json --topology this --strategy compact --threads 1
  [ "$(jq '.tasks[0].threads | length' <<<"$output")" = 1 ]
}

@test "text format shows the table and the per-level summary" {
  run "$SLURM_PIN" place --topology "$TOPO/core2.xml" --strategy lpgp --matrix "$MATRICES/pairs8.txt"
  expect_status 0
  [[ "$output" == *"Package#1 L2#3 Core#"* ]]
  [[ "$output" == *"L2               4  61.0%"* ]]
}

@test "smt beyond the cores' hardware threads: every one used, and a note says so" {
  run "$SLURM_PIN" place --topology "$TOPO/core2.xml" --strategy compact --threads 2 --smt 4 --format likwid
  expect_status 0
  [ "$output" = "0,1" ]
  run "$SLURM_PIN" place --topology "$TOPO/core2.xml" --strategy compact --threads 2 --smt 4
  [[ "$output" == *"note: smt 4: the cores here have 1 hardware thread, every one used"* ]]
  run "$SLURM_PIN" place --topology "$TOPO/nehalem-smt.xml" --strategy compact --threads 2 --smt 2
  [[ "$output" != *"note: smt"* ]]
  run "$SLURM_PIN" place --topology "$TOPO/nehalem-smt.xml" --strategy compact --threads 2 --smt 3
  [[ "$output" == *"note: smt 3: the cores here have 2 hardware threads, every one used"* ]]
}

@test "omp and likwid formats" {
  run "$SLURM_PIN" place --topology "$TOPO/nehalem-smt.xml" --strategy scatter --threads 3 --format omp
  expect_status 0
  [ "$output" = "{0,8},{4,12},{1,9}" ]
  run "$SLURM_PIN" place --topology "$TOPO/core2.xml" --strategy scatter --threads 3 --format likwid
  [ "$output" = "0,4,2" ]
}

@test "a placement written by --format placement reads back through file:PATH" {
  f=$BATS_TEST_TMPDIR/p.placement
  "$SLURM_PIN" place --topology "$TOPO/ccnuma.xml" --strategy lpgp --matrix "$MATRICES/pairs8.txt" \
    --tasks 2 --format placement >"$f"
  head -1 "$f" | grep -qx "slurm-pin-placement 1"
  place_json --topology "$TOPO/ccnuma.xml" --strategy lpgp --matrix "$MATRICES/pairs8.txt" --tasks 2
  want=$(jq -c '[.tasks[].threads[].cpus]' <<<"$output")
  place_json --topology "$TOPO/ccnuma.xml" --strategy "file:$f"
  [ "$(jq -c '[.tasks[].threads[].cpus]' <<<"$output")" = "$want" ]
}

@test "a zero matrix is placed and noted" {
  place_json --topology "$TOPO/core2.xml" --strategy lpgp --matrix "$MATRICES/zeros4.txt"
  [[ "$(jq -r '.notes[0]' <<<"$output")" == *"all zeros"* ]]
}

@test "--strategy help lists every strategy" {
  run "$SLURM_PIN" place --strategy help
  expect_status 0
  for s in none compact scatter random lp-compact lp-scatter gp lpgp gplp file:PATH; do
    [[ "$output" == *"  $s "* ]]
  done
}

@test "a sparse edge list: a 3-D stencil of 4096 threads placed on a deep machine, every pair on one L2" {
  # 16x16x16 grid, x neighbours share most: lpgp must keep each x-pair (2k, 2k+1) on one L2.
  f=$BATS_TEST_TMPDIR/stencil.edges
  awk 'BEGIN { print "slurm-pin-edges 1"; print "threads 4096"
    for (z = 0; z < 16; z++) for (y = 0; y < 16; y++) for (x = 0; x < 16; x++) {
      t = (z * 16 + y) * 16 + x
      if (x < 15) print t, t + 1, (x % 2 == 0 ? 1000 : 10)
      if (y < 15) print t, t + 16, 10
      if (z < 15) print t, t + 256, 10 } }' > "$f"
  place_json --topology "pack:8 l3:2 l2:128 core:2 pu:1" --strategy lpgp --matrix "$f"
  jq -e '.tasks[0].threads | length == 4096' <<<"$output"
  # every even thread and its x neighbour share an L2 (PUs 2k and 2k+1)
  jq -e '[.tasks[0].threads | range(0; 4096; 2) as $i | (.[$i].pu / 2 | floor) == (.[$i + 1].pu / 2 | floor)] | all' <<<"$output"
  # the same list as a dense matrix would be 4096 rows of 4096 values: over the 64 MiB limit
  run "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy lpgp --matrix "$f"
  expect_status 1
  [[ $output == *"more threads than"* || $output == *"4096"* ]]
}

@test "a malformed edge list is one line naming the line and the fix" {
  f=$BATS_TEST_TMPDIR/bad.edges
  printf 'slurm-pin-edges 1\nthreads 4\n0 1 5\n2 9 1\n' > "$f"
  run "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy lpgp --matrix "$f"
  expect_status 1
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"bad.edges:4: thread 9 is out of range"* ]]
}

@test "placements on real machines' topologies are the golden ones (tests/golden/placements/*.case)" {
  # Every strategy, tasks, smt, granularity and GPU locality on the XML of
  # real machines, one case per file; a meant change is regenerated as
  # tests/golden/check-placements says.
  run "$BATS_TEST_DIRNAME/../golden/check-placements" "$BUILD"
  echo "$output" | head -60
  expect_status 0
  [ "$(ls "$BATS_TEST_DIRNAME"/../golden/placements/*.case | wc -l)" -ge 50 ]
  [[ "${lines[-1]}" == *"golden placements, 0 differ" ]]
}

@test "--task-matrix: tasks that exchange most share a package; a matrix of another size is one line" {
  # Ranks 0-2 and 1-3 exchange most: block order would split both pairs.
  printf '0 1 100 1\n1 0 1 100\n100 1 0 1\n1 100 1 0\n' >"$BATS_TEST_TMPDIR/ranks.txt"
  place_json --topology "pack:2 l3:1 core:2 pu:1" --strategy compact --tasks 4 --task-matrix "$BATS_TEST_TMPDIR/ranks.txt"
  pkg() { echo $(($(pus_of_task "$1") / 2)); }
  [ "$(pkg 0)" = "$(pkg 2)" ]
  [ "$(pkg 1)" = "$(pkg 3)" ]
  [ "$(pkg 0)" != "$(pkg 1)" ]
  # Every core once.
  [ "$(for t in 0 1 2 3; do pus_of_task $t; done | sort | tr '\n' ' ')" = "0 1 2 3 " ]
  # The report: the traffic kept inside one package, all but the light pairs'.
  kept=$(jq '.score.levels[] | select(.level == "Package") | .task_traffic | "\(.kept) \(.total)"' -r <<<"$output")
  [ "$kept" = "400 408" ] || { jq -c .score <<<"$output"; false; }
  run "$SLURM_PIN" place --topology "pack:2 l3:1 core:2 pu:1" --tasks 3 --task-matrix "$BATS_TEST_TMPDIR/ranks.txt"
  expect_status 1
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"4 tasks but 3 tasks run here"* ]]
}

@test "--profile takes a store name as srun does (--store), a file by its path" {
  store=$BATS_TEST_TMPDIR/store
  mkdir -p "$store/pairs"
  printf 'slurm-pin-profile 1\nthreads 4\nmatrix simple\n0 1 9 1\n1 0 1 9\n9 1 0 1\n1 9 1 0\n' >"$store/pairs/t4.v1.profile"
  chmod -R go-w "$store"
  place_json --topology "pack:2 core:2 pu:1" --strategy lp-compact --profile pairs --store "$store"
  [ "$(jq '[.tasks[0].threads[] | .pu / 2 | floor] | .[0] == .[2] and .[1] == .[3]' <<<"$output")" = true ]
  run "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy lp-compact --profile "$store/pairs/t4.v1.profile" --format json
  expect_status 0
  # A thread count the store lacks: one line naming the counts it has.
  run "$SLURM_PIN" place --topology "pack:1 core:2 pu:1" --strategy lp-compact --profile pairs --store "$store"
  expect_status 1
  [[ "$output" == *"profile 'pairs' has no 2-thread profile (it has 4)"* ]]
}

@test "--task-matrix with every strategy: one-thread tasks need no sharing matrix, more threads go compact with a note" {
  printf '0 1 100 1\n1 0 1 100\n100 1 0 1\n1 100 1 0\n' >"$BATS_TEST_TMPDIR/ranks.txt"
  for s in compact scatter lp-compact lp-scatter gp lpgp gplp; do
    run --separate-stderr "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy "$s" --tasks 4 \
      --task-matrix "$BATS_TEST_TMPDIR/ranks.txt" --format json
    [ "$status" -eq 0 ] || { echo "$s: $stderr"; false; }
    [ -z "$stderr" ] && [ "$(jq '.notes | length' <<<"$output")" -eq 0 ] || { echo "$s: $stderr $output"; false; }  # nothing to note for one thread
    pkg() { echo $(($(pus_of_task "$1") / 2)); }
    [ "$(pkg 0)" = "$(pkg 2)" ] && [ "$(pkg 1)" = "$(pkg 3)" ] || { echo "$s: $output"; false; }
  done
  # Two threads per task, no sharing matrix: the tasks by traffic, their threads compact, said once.
  run --separate-stderr "$SLURM_PIN" place --topology "pack:2 core:4 pu:1" --strategy lpgp --tasks 4 \
    --task-matrix "$BATS_TEST_TMPDIR/ranks.txt"
  [ "$status" -eq 0 ]
  [ "$(grep -c 'without a sharing matrix each task.s threads are placed compact' <<<"$output")" -eq 1 ]
  # Without the task matrix, lpgp still names what it needs.
  run "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy lpgp --tasks 4
  expect_status 1
  [[ "$output" == *"needs a sharing matrix"* ]]
}

@test "--nodes: ranks across nodes by their traffic, as a hostfile for srun --distribution=arbitrary" {
  # A 4x4 halo exchange whose ranks are numbered column by column: block
  # order puts whole columns on a node, cutting three quarters of the pairs.
  for i in $(seq 0 15); do
    for j in $(seq 0 15); do
      xi=$((i / 4)) yi=$((i % 4)) xj=$((j / 4)) yj=$((j % 4))
      d=$(( (xi - xj) * (xi - xj) + (yi - yj) * (yi - yj) ))
      printf '%s%s' "$([ "$d" -eq 1 ] && echo 100 || echo 0)" "$([ "$j" -lt 15 ] && echo ' ')"
    done
    echo
  done >"$BATS_TEST_TMPDIR/halo.txt"
  run "$SLURM_PIN" place --nodes n1,n2,n3,n4 --task-matrix "$BATS_TEST_TMPDIR/halo.txt" --format hostfile
  expect_status 0
  [ "${#lines[@]}" -eq 16 ]
  # Four ranks on each node, as block gives them.
  [ "$(sort <<<"$output" | uniq -c | awk '{ print $1 }' | sort -u)" = 4 ]
  run "$SLURM_PIN" place --nodes 4 --task-matrix "$BATS_TEST_TMPDIR/halo.txt" --format json
  expect_status 0
  # 24 pairs of 200: 2x2 quadrants cut 8 of them; block (columns) 12.
  [ "$(jq '.traffic | "\(.total) \(.crossing) \(.block)"' -r <<<"$output")" = "4800 1600 2400" ] || { echo "$output"; false; }
  run "$SLURM_PIN" place --nodes 4 --task-matrix "$BATS_TEST_TMPDIR/halo.txt" --format hostfile
  expect_status 1
  [[ "$output" == *"needs the nodes' names"* ]]
  run "$SLURM_PIN" place --nodes 4 --strategy compact
  expect_status 2
  # A node named twice is refused, not given two nodes' ranks.
  run "$SLURM_PIN" place --nodes n1,n2,n1,n4 --task-matrix "$BATS_TEST_TMPDIR/halo.txt" --format hostfile
  expect_status 1
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "slurm-pin: error: --nodes: 'n1' is named twice: name each node once"* ]]
}
