#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The profiler end to end: bundled sharing workloads profiled as Slurm jobs
# into the store, with the valgrind and compiler backends, per region; the
# profiles reveal the designed pairs and groups and the engine accepts them.

load slurm_helpers

WORKLOADS=$BATS_TEST_DIRNAME/../../profiler/workloads

setup_file() {
  slurm_up task/none
  local b=$WORK/bin
  gcc -O1 -pthread "$WORKLOADS/producer_consumer.c" -o "$b/pc"
  gcc -O1 -g -fopenmp "$WORKLOADS/omp_two_regions.c" -o "$b/two_regions"
  gcc -O1 -fopenmp "$WORKLOADS/omp_abba.c" -o "$b/abba"
  "$SP_CLANG" -O1 -fopenmp "$WORKLOADS/omp_two_regions.c" -o "$b/two_regions_llvm" -Wl,-rpath,"$SP_LLVM_LIB"
  # The compiler backend: instrumented objects, linked with slurm-pin's runtime.
  for w in producer_consumer:pc omp_two_regions:two_regions; do
    gcc -O1 -pthread -fopenmp -fsanitize=thread -c "$WORKLOADS/${w%%:*}.c" -o "$b/${w##*:}_tsan.o"
    gcc "$b/${w##*:}_tsan.o" -o "$b/${w##*:}_tsan" -pthread -fopenmp -L"$BUILD/lib" -lslurm_pin_tsan \
      -Wl,-rpath,"$BUILD/lib"
  done
  # Real-shaped workloads, both compilers, both backends. clang's -g is
  # DWARF 5, which Valgrind before 3.20 cannot read: -gdwarf-4 for valgrind.
  gcc -O2 -g -fopenmp "$WORKLOADS/stencil3d.c" -o "$b/stencil_gcc"
  "$SP_CLANG" -O2 -gdwarf-4 -fopenmp "$WORKLOADS/stencil3d.c" -o "$b/stencil_clang" -Wl,-rpath,"$SP_LLVM_LIB"
  "$SP_CLANG" -O2 -gdwarf-5 -fopenmp "$WORKLOADS/stencil3d.c" -o "$b/stencil_dwarf5" -Wl,-rpath,"$SP_LLVM_LIB"
  gcc -O2 -g -fopenmp -fsanitize=thread -c "$WORKLOADS/stencil3d.c" -o "$b/stencil_gcc_tsan.o"
  gcc "$b/stencil_gcc_tsan.o" -o "$b/stencil_gcc_tsan" -fopenmp -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib"
  "$SP_CLANG" -O2 -g -fopenmp -fsanitize=thread -c "$WORKLOADS/stencil3d.c" -o "$b/stencil_clang_tsan.o"
  "$SP_CLANG" "$b/stencil_clang_tsan.o" -o "$b/stencil_clang_tsan" -fopenmp -L"$BUILD/lib" -lslurm_pin_tsan \
    -Wl,-rpath,"$BUILD/lib" -Wl,-rpath,"$SP_LLVM_LIB"
  gcc -O1 -g -fopenmp "$WORKLOADS/omp_one_line.c" -o "$b/one_line"
  gcc -O2 -g -pthread "$WORKLOADS/pipeline.c" -o "$b/pipeline"
  gcc -O2 -pthread -fsanitize=thread -c "$WORKLOADS/pipeline.c" -o "$b/pipeline_tsan.o"
  gcc "$b/pipeline_tsan.o" -o "$b/pipeline_tsan" -pthread -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib"
  chmod -R a+rX "$b"
}

# The simple matrix of a profile file, one row per line.
matrix_of() { sed -n '/^matrix simple$/,/^[a-z]/p' "$1" | grep -v '^[a-z]'; }
teardown_file() { slurm_down; }

# Profiles as the admin (root), through srun, into the store; or into a
# file. From a directory of root's: the work directory is made where the
# command runs, and never in one another user could change (docs/profiler.md).
profile() { (cd "$CLUSTER" && "$SLURM_PIN" profile --store "$STORE" --cpus 2 "$@"); }
profile_file() { (cd "$CLUSTER" && "$SLURM_PIN" profile --cpus 2 "$@"); }

# The PUs lp-compact gives each thread on 4 pairs of cores: threads that
# share a pair of PUs {2k, 2k+1} were paired.
pairs_of() {
  "$SLURM_PIN" place --topology "pack:4 core:2 pu:1" --strategy lp-compact --format likwid "$@" |
    tr , '\n' | awk '{ pair[int($1 / 2)] = pair[int($1 / 2)] " " NR - 1 } END { for (p in pair) print pair[p] }' |
    sed 's/^ //' | sort | paste -sd'|' -
}

@test "a pthread program profiled as a Slurm job ends in the store, and LP recovers its pairs" {
  run profile --app pc --threads 4 -- "$WORK/bin/pc" 20 64
  [ "$status" -eq 0 ] || { echo "$output"; return 1; }
  [[ "$output" == *"$STORE/pc/t4.v1.profile (pc@1)"* ]]
  [ -f "$STORE/pc/t4.v1.profile" ]
  grep -q "^tool valgrind .*backend valgrind" "$STORE/pc/t4.v1.profile"
  grep -qE "^binary_sha256 [0-9a-f]{64}$" "$STORE/pc/t4.v1.profile"
  # Threads in creation order, main first: the pairs are (0,2) and (1,3).
  [ "$(pairs_of --profile "$STORE/pc/t4.v1.profile")" = "0 2|1 3" ]
  run "$SLURM_PIN" place --topology "$TOPO/core2.xml" --strategy lpgp --profile "$STORE/pc/t4.v1.profile" --format json
  [ "$status" -eq 0 ]
  # The job ran through Slurm.
  scontrol -o show jobs | grep -q "JobName=profile:pc"
}

@test "the site's store, set once on the plugstack line: profile and profiles find it without --store" {
  # No --store, no SLURM_PIN_STORE; only SLURM_CONF (the cluster's): the admin profiles, users list.
  site_profile() { (cd "$CLUSTER" && env -u SLURM_PIN_STORE "$SLURM_PIN" profile "$@"); }
  run site_profile --app site-pc --threads 4 --cpus 2 -- "$WORK/bin/pc" 20 64
  [ "$status" -eq 0 ] || { echo "$output"; return 1; }
  [ -f "$STORE/site-pc/t4.v1.profile" ]
  run as_user env -u SLURM_PIN_STORE "$SLURM_PIN" profiles list
  [ "$status" -eq 0 ]
  [[ "$output" == *site-pc* ]]
  # The environment still chooses another (a user's own store).
  mkdir -m 755 "$WORK/mine" && chown "$TEST_USER" "$WORK/mine"
  run as_user env SLURM_PIN_STORE="$WORK/mine" "$SLURM_PIN" profiles list
  [[ "$output" != *site-pc* ]]
}

@test "profiling again adds a version and keeps the earlier one" {
  profile --app pc --threads 4 -- "$WORK/bin/pc" 10 64
  [ -f "$STORE/pc/t4.v1.profile" ]
  [ -f "$STORE/pc/t4.v2.profile" ]
  run "$SLURM_PIN" profiles list --store "$STORE"
  [[ "$output" == *"pc "*" 4       1 "* ]]
  [[ "$output" == *"pc "*" 4       2 "* ]]
}

@test "GCC OpenMP regions (libgomp): each region's matrix reveals its own pairs" {
  profile --app two --threads 8 -- "$WORK/bin/two_regions" 3 16
  f=$STORE/two/t8.v1.profile
  [ "$(grep -c '^region ' "$f")" -eq 2 ]
  grep -q "^region main._omp_fn.0$" "$f"
  [ "$(pairs_of --profile "$f" --region main._omp_fn.0)" = "0 4|1 5|2 6|3 7" ]
  [ "$(pairs_of --profile "$f" --region main._omp_fn.1)" = "0 1|2 3|4 5|6 7" ]
}

@test "clang OpenMP regions (LLVM libomp, through OMPT): the same pairs per region" {
  profile --app two-llvm --threads 8 -- "$WORK/bin/two_regions_llvm" 3 16
  f=$STORE/two-llvm/t8.v1.profile
  mapfile -t regions < <(awk '/^region /{ print $2 }' "$f")
  [ "${#regions[@]}" -eq 2 ]
  [ "$(pairs_of --profile "$f" --region "${regions[0]}")" = "0 4|1 5|2 6|3 7" ]
  [ "$(pairs_of --profile "$f" --region "${regions[1]}")" = "0 1|2 3|4 5|6 7" ]
}

@test "A x B + B x A: groups of four share a block, differently in each product" {
  profile --app abba --threads 8 -- "$WORK/bin/abba" 64
  f=$STORE/abba/t8.v1.profile
  group() {  # threads GP puts on the first 4-core L3 of two, as a sorted list
    "$SLURM_PIN" place --topology "pack:2 l3:1 core:4 pu:1" --strategy gp --profile "$f" --region "$1" \
      --format json | jq -r '[.tasks[0].threads | to_entries[] | select(.value.pu < 4) | .key] | sort | join(" ")'
  }
  [[ "$(group main._omp_fn.0)" =~ ^(0\ 1\ 2\ 3|4\ 5\ 6\ 7)$ ]]
  [[ "$(group main._omp_fn.1)" =~ ^(0\ 2\ 4\ 6|1\ 3\ 5\ 7)$ ]]
}

@test "the compiler backend agrees with the valgrind backend" {
  profile --app pc-c --threads 4 --backend compiler -- "$WORK/bin/pc_tsan" 20 64
  grep -q "^tool compiler tsan-hooks" "$STORE/pc-c/t4.v1.profile"
  [ "$(pairs_of --profile "$STORE/pc-c/t4.v1.profile")" = "$(pairs_of --profile "$STORE/pc/t4.v1.profile")" ]
  profile --app two-c --threads 8 --backend compiler -- "$WORK/bin/two_regions_tsan" 3 16
  for r in main._omp_fn.0 main._omp_fn.1; do
    [ "$(pairs_of --profile "$STORE/two-c/t8.v1.profile" --region $r)" = \
      "$(pairs_of --profile "$STORE/two/t8.v1.profile" --region $r)" ]
  done
}

@test "profiles show prints the matrix and draws a PNG; export and import round-trip; rm removes a version" {
  run "$SLURM_PIN" profiles show pc@1 --store "$STORE" --png "$BATS_TEST_TMPDIR/pc.png"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "pc@1: 4 threads, simple model" ]]
  [ "$(head -c 8 "$BATS_TEST_TMPDIR/pc.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
  # 4 threads of 128 pixels, plus a title and column numbers above, row
  # numbers on the left and the colour scale with its labels on the right.
  read -r w h < <(od -An -tu1 -j16 -N8 "$BATS_TEST_TMPDIR/pc.png" |
    awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')
  [ "$h" -gt 512 ] && [ "$w" -gt $((h + 40)) ] || { echo "$w x $h"; false; }
  "$SLURM_PIN" profiles export pc@1 --store "$STORE" --output "$BATS_TEST_TMPDIR/pc.profile"
  run "$SLURM_PIN" profiles import "$BATS_TEST_TMPDIR/pc.profile" --app pc-copy --store "$STORE"
  [ "$status" -eq 0 ]
  cmp <(grep -v '^application' "$STORE/pc-copy/t4.v1.profile") <(grep -v '^application' "$STORE/pc/t4.v1.profile")
  "$SLURM_PIN" profiles rm pc-copy@1 --threads 4 --store "$STORE"
  [ ! -f "$STORE/pc-copy/t4.v1.profile" ]
}

@test "the heatmap shows the pairs that matter: the busiest pair dark, a near-idle thread pale, each cell's share written" {
  grep -q '^thread_accesses [0-9]' "$STORE/pc/t4.v1.profile"  # the profiler records them
  red_pixels() {  # pixels of the image that are red (the heatmap's top colours)
    /usr/bin/python3 -c 'import sys, matplotlib.image as m; a = m.imread(sys.argv[1])[:, :, :3]
print(int(((a[:, :, 0] > 0.4) & (a[:, :, 1] < 0.3) & (a[:, :, 2] < 0.3)).sum()))' "$1"
  }
  # pigz's shape: a near-idle main thread (100 accesses, 90 of them to lines
  # the busy ones touch) and two busy threads sharing 2627 lines of 5 million
  # accesses each. Relative to each thread's own accesses the main thread's
  # cells were the darkest; relative to the pair that shares most, the busy
  # pair's two cells are, and nothing else.
  printf 'slurm-pin-profile 1\nthreads 4\nthread_accesses 100 5000000 5000000 200\nthread_starts main busy busy idle\n' >"$BATS_TEST_TMPDIR/busy.profile"
  printf 'matrix simple\n0 90 90 5\n90 0 2627 25\n90 2627 0 25\n5 25 25 0\n' >>"$BATS_TEST_TMPDIR/busy.profile"
  "$SLURM_PIN" profiles import "$BATS_TEST_TMPDIR/busy.profile" --app heat-busy --store "$STORE" >/dev/null
  run "$SLURM_PIN" profiles show heat-busy --store "$STORE" --png "$BATS_TEST_TMPDIR/busy.png"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # A table a person reads: headers naming the threads, and the unit.
  [[ "$output" == *$'\n'"1 busy "*" 2627 "*" 5000000"* ]] || { echo "$output"; false; }
  [[ "$output" == *"accesses (the thread's own, whole run)"* ]]
  red=$(red_pixels "$BATS_TEST_TMPDIR/busy.png")
  [ "$red" -gt 20000 ] && [ "$red" -lt 70000 ] || { echo "red pixels: $red"; false; }  # two cells of about 140 x 140
  printf 'slurm-pin-profile 1\nthreads 2\nthread_accesses 10\nmatrix simple\n0 10\n10 0\n' >"$BATS_TEST_TMPDIR/short.profile"
  run "$SLURM_PIN" profiles import "$BATS_TEST_TMPDIR/short.profile" --app heat-short --store "$STORE"
  [ "$status" -ne 0 ]
  [[ "$output" == *thread_accesses* ]]
}

@test "an edge-list profile is stored, shown as its symmetric matrix, and refused to show past 2048 threads" {
  printf 'slurm-pin-profile 1\nthreads 3\nedges simple\n0 1 7\n2 1 2\n' > "$BATS_TEST_TMPDIR/e.profile"
  "$SLURM_PIN" profiles import "$BATS_TEST_TMPDIR/e.profile" --app edges --store "$STORE" >/dev/null
  run "$SLURM_PIN" profiles show edges@1 --store "$STORE"
  [ "$status" -eq 0 ]
  # A table: what a cell counts, the columns' numbers, each row's number first.
  [[ "${lines[1]}" == "cells: accesses to cache lines both threads touch (eq. 5.1), whole run" ]]
  [ "$(tr -s ' ' <<<"${lines[2]}")" = "thread 0 1 2" ]
  [ "$(tr -s ' ' <<<"${lines[3]}")" = "0 0 7 0" ]
  [ "$(tr -s ' ' <<<"${lines[4]}")" = "1 7 0 2" ]
  { printf 'slurm-pin-profile 1\nthreads 3000\nedges simple\n'; seq 0 2998 | awk '{print $1, $1 + 1, 1}'; } > "$BATS_TEST_TMPDIR/big.profile"
  "$SLURM_PIN" profiles import "$BATS_TEST_TMPDIR/big.profile" --app big --store "$STORE" >/dev/null
  run "$SLURM_PIN" profiles show big@1 --store "$STORE"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"3000 threads are too many to show as a matrix (at most 2048"* ]]
}

@test "concurrent writers get distinct versions and nothing is lost" {
  for i in 1 2 3 4 5 6; do
    "$SLURM_PIN" profiles import "$FIXTURES/profiles/pairs2.profile" --app race --store "$STORE" >/dev/null &
  done
  wait
  [ "$(ls "$STORE/race" | grep -c '^t2\.v[1-6]\.profile$')" -eq 6 ]
  ! ls -a "$STORE/race" | grep -q '^\.tmp' || false
}

@test "profiler errors are one line naming the problem and the fix" {
  run profile --app pc --threads 4 --backend dtrace -- "$WORK/bin/pc"
  [ "$status" -eq 1 ]
  [ "$output" = "slurm-pin: error: unknown backend 'dtrace': use valgrind, compiler or pin" ]
  run env -u PIN_ROOT "$SLURM_PIN" profile --app pc --threads 4 --backend pin --store "$STORE" -- "$WORK/bin/pc"
  [ "$output" = "slurm-pin: error: the pin backend needs PIN_ROOT pointing at an Intel Pin kit" ]
  run profile --app pc --threads 4 -- /nonexistent/prog
  [ "$output" = "slurm-pin: error: program /nonexistent/prog: No such file or directory (give the path of an executable)" ]
  run profile --app 'bad name' --threads 4 -- "$WORK/bin/pc"
  [[ "$output" == *"profile name 'bad name' is not valid"* ]]
  # Found before the run: a store the user cannot write, a job no node can hold.
  run as_user "$SLURM_PIN" profile --app pc --threads 4 --store "$STORE" --no-srun -- /bin/sleep 30
  [ "$status" -eq 1 ]
  [[ "$output" == "slurm-pin: error: the profile store $STORE is not writable by you"*"--output FILE"* ]]
  run profile --app pc --threads 4 --backend compiler -- "$WORK/bin/pc" 2 8
  [ "$status" -eq 1 ]
  [[ "$output" == *"was not built for the compiler backend: compile with -fsanitize=thread"* ]]
  run profile --app pc --threads 4 -- "$WORK/bin/pc_tsan" 2 8
  [[ "$output" == *"was built with -fsanitize=thread"*"--backend compiler"* ]]
  run "$SLURM_PIN" profile --store "$STORE" --app pc --threads 4 --cpus 64 -- /bin/sleep 30
  [ "$status" -eq 1 ]
  [[ "$output" == *"would ask 64 CPUs but the largest node"*"would wait forever: give --cpus"* ]]
  run "$SLURM_PIN" profiles show nosuch --store "$STORE"
  [ "$output" = "slurm-pin: error: no profile 'nosuch' in the store $STORE" ]
}

@test "no work directory survives a failure or a signal, and the store sweeps stale temporary files" {
  run as_user "$SLURM_PIN" profile --app pc --threads 4 --no-srun --output "$WORK/x.profile" -- /bin/false
  [ "$status" -eq 1 ]
  # Killed while the program runs, ten times: nothing is left behind.
  for i in $(seq 10); do
    (cd "$WORK" && runuser -u "$TEST_USER" -- env TMPDIR="$WORK" "$SLURM_PIN" profile --app pc --threads 4 --no-srun \
      --output "$WORK/x.profile" -- "$WORK/bin/pc" 200 4096) &
    sleep 0.5
    pkill -TERM -f "slurm-pin-profile --app pc --threads 4 --no-srun --output $WORK/x.profile" || true
    wait || true
  done
  [ -z "$(ls -a "$WORK" | grep '^\.slurm-pin-profile\.')" ] || { ls -a "$WORK"; return 1; }
  # A writer killed mid-write left a temporary file: the next write removes it.
  touch "$STORE/pc/.tmp.4242.0"
  "$SLURM_PIN" profiles import "$FIXTURES/profiles/pairs8.profile" --app pc --store "$STORE" >/dev/null
  [ ! -e "$STORE/pc/.tmp.4242.0" ]
}

@test "profiles list reports a bad profile on one line and lists the rest" {
  install -d -m 755 "$STORE/broken"
  printf 'not a profile\n' >"$STORE/broken/t2.v1.profile"
  run --separate-stderr "$SLURM_PIN" profiles list --store "$STORE"
  [ "$status" -eq 1 ]
  [ "$(grep -c . <<<"$stderr")" -eq 1 ]
  [[ "$stderr" == "slurm-pin: error: skipping a bad profile: $STORE/broken/t2.v1.profile:1: not a profile"* ]]
  [[ "$output" == *$'\n'"pc "* ]]
  rm -rf "$STORE/broken"
}

@test "a wrapper script is followed to the program it runs, whether it execs it or not" {
  printf '#!/bin/sh\nexec "$@"\n' >"$WORK/bin/exec-wrapper"
  printf '#!/bin/sh\necho starting >&2\n"$@"\necho done >&2\n' >"$WORK/bin/fork-wrapper"
  chmod a+rx "$WORK/bin/exec-wrapper" "$WORK/bin/fork-wrapper"
  for w in exec-wrapper fork-wrapper; do
    run --separate-stderr profile_file --app pc --threads 4 --output "$WORK/$w.profile" -- "$WORK/bin/$w" "$WORK/bin/pc" 2 8
    [ "$status" -eq 0 ] || { echo "$w: $stderr"; false; }
    grep -qx 'threads 4' "$WORK/$w.profile"
    # The program's pairs, as profiled directly.
    [ "$(pairs_of --profile "$WORK/$w.profile")" = "$(pairs_of --profile "$STORE/pc/t4.v1.profile")" ] || { echo "$w"; false; }
  done
}

@test "a thread-count mismatch is a warning: every thread created is kept" {
  # pc creates 4 threads whatever it is asked: asked for 6, its profile has 4.
  run --separate-stderr profile --app pc --threads 6 -- "$WORK/bin/pc" 2 8
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$stderr" == *"slurm-pin: warning: the program was asked for 6 threads and created 4"* ]]
  [[ "$stderr" == *"profile of pc with 4 threads"* ]]
  # The summary is a message: standard output is the program's alone.
  [[ "$output" != *"profile of"* ]]
  [[ "$output" != *DRR* ]]
}

@test "the valgrind backend asks for one CPU; the compiler backend for one per thread" {
  (cd "$CLUSTER" && "$SLURM_PIN" profile --store "$STORE" --app pc --threads 2 -- "$WORK/bin/pc" 2 8) >/dev/null
  scontrol -o show jobs | grep "JobName=profile:pc" | tail -1 | grep -q "NumCPUs=1 "
}

@test "--baseline runs the program natively first and the summary gives the slowdown" {
  run profile_file --app pc --threads 4 --baseline --output "$WORK/base.profile" -- "$WORK/bin/pc" 20 64
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" =~ "under the valgrind backend against "[0-9.]+" s natively: "[0-9.]+x ]] || { echo "$output"; false; }
}

@test "a kept trace is analysed again with --from-trace" {
  run profile --app pc --threads 4 --keep-trace --workdir "$CLUSTER" -- "$WORK/bin/pc" 2 8
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  trace=$(sed -n 's/^trace kept in //p' <<<"$output")
  [ -s "$trace" ]
  run "$SLURM_PIN" profile --app pc --from-trace "$trace" --output "$WORK/again.profile"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(pairs_of --profile "$WORK/again.profile")" = "0 2|1 3" ]
  rm -rf "$(dirname "$trace")"
}

@test "a 3-D stencil, gcc and clang, valgrind and compiler backends: the slabs' chain, serial set-up left out" {
  for run in valgrind:stencil_gcc valgrind:stencil_clang compiler:stencil_gcc_tsan compiler:stencil_clang_tsan; do
    rm -f "$WORK/st.profile"
    run profile_file --app st --threads 4 --backend "${run%%:*}" --output "$WORK/st.profile" -- "$WORK/bin/${run##*:}" 40 2
    [ "$status" -eq 0 ] || { echo "$run: $output"; false; }
    [[ "$output" == *"1 parallel region"*"serial part left out of the whole-run matrix"* ]] || { echo "$output"; false; }
    # Neighbouring slabs share their boundary planes: pairs (0,1) and (2,3),
    # and (1,2) shares several times more than (0,3) (which shares only the
    # variables the outlined loop reads, under clang).
    [ "$(pairs_of --profile "$WORK/st.profile")" = "0 1|2 3" ] || { echo "$run"; matrix_of "$WORK/st.profile"; false; }
    matrix_of "$WORK/st.profile" | awk 'NR == 2 { mid = $3 } NR == 1 { far = $4 } END { exit !(mid > 3 * far) }' ||
      { echo "$run"; matrix_of "$WORK/st.profile"; false; }
    grep -qE '^region (main\._omp_fn\.0|main\+[0-9]+)$' "$WORK/st.profile"
    # Its source line, from debug info (valgrind) or addr2line (compiler).
    grep -qx "region_sources stencil3d.c:3[0-9]" "$WORK/st.profile" || { echo "$run"; grep region "$WORK/st.profile"; false; }
  done
}

@test "two regions from one source line are one region with an alias, and both names get its placement" {
  run profile_file --app one --threads 4 --output "$WORK/one.profile" -- "$WORK/bin/one_line" 100
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qx "region main._omp_fn.0" "$WORK/one.profile"
  grep -qx "aliases main._omp_fn.1" "$WORK/one.profile"
  grep -qx "region_sources omp_one_line.c:25" "$WORK/one.profile"
  run "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy lpgp --profile "$WORK/one.profile" --phases
  [ "$status" -eq 0 ]
  [[ "$output" == *"region main._omp_fn.0"*"task 0: "*"region main._omp_fn.1 (merged with the previous region)"* ]]
  run "$SLURM_PIN" place --topology "pack:2 core:2 pu:1" --strategy lpgp --profile "$WORK/one.profile" --region main._omp_fn.1
  [ "$status" -eq 0 ]
}

@test "clang's DWARF 5 is refused before a valgrind run that cannot read it (before 3.20), with the fix" {
  run profile_file --app st --threads 4 --output "$WORK/st.profile" -- "$WORK/bin/stencil_dwarf5" 40 2
  version=$(valgrind --version | sed 's/^valgrind-//')
  if [ "$(printf '%s\n3.20\n' "$version" | sort -V | head -1)" = 3.20 ]; then
    [ "$status" -eq 0 ]  # this Valgrind reads DWARF 5
  else
    [ "$status" -eq 1 ]
    [[ "$output" == "slurm-pin: error: "*"DWARF 5 debug info, which Valgrind"*"rebuild with -gdwarf-4"* ]]
  fi
}

@test "a pipeline with a helper thread and workers created on demand: every thread kept, reader and writer are hubs" {
  for run in valgrind:pipeline compiler:pipeline_tsan; do
    run --separate-stderr profile_file --app pipe --threads 4 --backend "${run%%:*}" --output "$WORK/pipe.profile" \
      -- "$WORK/bin/${run##*:}" 32 64
    [ "$status" -eq 0 ] || { echo "$run: $stderr"; false; }
    # Asked for 4 workers, it made 4 plus the writer plus main: all 6 kept.
    [[ "$stderr" == *"asked for 4 threads and created 6"* ]]
    # The compiler backend says what it cannot see.
    [ "${run%%:*}" = valgrind ] || [[ "$stderr" == *"counts only code built with -fsanitize=thread"* ]]
    grep -qx "threads 6" "$WORK/pipe.profile"
    grep -qx "thread_creators - 0 0 0 0 0" "$WORK/pipe.profile"
    grep -qx "thread_starts main writer worker worker worker worker" "$WORK/pipe.profile"
    # Each worker shares its input with the reader (0) and its output with
    # the writer (1), tenfold more than with any other worker.
    matrix_of "$WORK/pipe.profile" | awk '
      { for (j = 1; j <= NF; ++j) w[NR - 1, j - 1] = $j }
      END {
        for (k = 2; k < 6; ++k) {
          other = 0
          for (j = 2; j < 6; ++j) if (j != k && w[k, j] > other) other = w[k, j]
          if (w[k, 0] < 10 * other || w[k, 1] < 10 * other) exit 1
        }
      }' || { echo "$run"; matrix_of "$WORK/pipe.profile"; false; }
  done
  # Given fewer chunks than workers, it creates fewer: still a profile.
  run --separate-stderr profile_file --app pipe --threads 4 --output "$WORK/pipe.profile" -- "$WORK/bin/pipeline" 2 64
  [ "$status" -eq 0 ]
  grep -qx "threads 4" "$WORK/pipe.profile"
}

@test "profiles show lists regions one per line with their share and finds a region by glob or prefix" {
  profile --app tworeg --threads 8 -- "$WORK/bin/two_regions" 3 16 >/dev/null
  run "$SLURM_PIN" profiles show tworeg --store "$STORE" --region 'main._omp_fn.*'
  [ "$status" -eq 1 ]
  [[ "$output" == *"matches 2 regions (main._omp_fn.0, main._omp_fn.1)"* ]]
  run "$SLURM_PIN" profiles show tworeg --store "$STORE" --region '*fn.1'
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "tworeg@1: 8 threads, simple model, region main._omp_fn.1" ]]
  [[ "$output" == *$'\n'"  main._omp_fn.0 "*"%"*"omp_two_regions.c:"*$'\n'"  main._omp_fn.1 "*"%"*$'\n'* ]]
  [[ "$output" == *"threads (creation order: created by, start routine):"* ]]
}

@test "profiles diff: alike profiles give the same placement, a different structure does not" {
  # pc@1 and pc@2 are two runs of one program (first tests): the same pairs.
  run "$SLURM_PIN" profiles diff pc@1 pc@2 --store "$STORE" --threads 4 --topology "pack:2 l2:1 core:2 pu:1"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" == *"similarity of the matrices (cosine over every pair): "[01]* ]]
  [[ "$output" == *"lpgp on pack:2 l2:1 core:2 pu:1: the same placement"* ]]
  # pc pairs (0,2) and (1,3); this one pairs (0,1) and (2,3).
  printf 'slurm-pin-profile 1\nthreads 4\nmatrix simple\n0 900 1 1\n900 0 1 1\n1 1 0 900\n1 1 900 0\n' \
    >"$WORK/swapped.profile"
  run "$SLURM_PIN" profiles diff pc@1 "$WORK/swapped.profile" --store "$STORE" --threads 4 --topology "pack:2 l2:1 core:2 pu:1"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" == *"different placements"*"differ in quality"* ]] || { echo "$output"; false; }
  run "$SLURM_PIN" profiles diff pc@1 "$FIXTURES/profiles/pairs8.profile" --store "$STORE" --threads 4
  [ "$status" -eq 1 ]
  [[ "$output" == *"has 4 threads and"*"8: compare profiles of one thread count"* ]]
}

@test "a user can profile into a file" {
  run as_user "$SLURM_PIN" profile --app pc --threads 4 --no-srun --output "$WORK/mine.profile" -- "$WORK/bin/pc" 5 8
  [ "$status" -eq 0 ]
  [ "$(stat -c %U "$WORK/mine.profile")" = "$TEST_USER" ]
  [ "$(pairs_of --profile "$WORK/mine.profile")" = "0 2|1 3" ]
}

@test "a program that changes its directory before it ends is profiled all the same" {
  # Outside an allocation the work directory is made here, in the current
  # directory: the backend writes into it when the program ends, wherever
  # the program is then.
  printf '#include <unistd.h>\nint main(void) { return chdir("/"); }\n' >"$WORK/cd_root.c"
  gcc -O1 -g "$WORK/cd_root.c" -o "$WORK/bin/cd_root"
  chmod a+rx "$WORK/bin/cd_root"
  run --separate-stderr as_user "$SLURM_PIN" profile --app cd --threads 1 --output "$WORK/cd.profile" -- "$WORK/bin/cd_root"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  grep -qx 'threads 1' "$WORK/cd.profile"
}
