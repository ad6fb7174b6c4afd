#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The recorders count exactly: a program with known reads and writes to four
# lines (tests/programs/line_access.c), under the valgrind tool and built
# for the compiler backend, gives the same, expected records. Atomics count
# one read and one write in both; an access across two lines counts in both.
# The sums each backend computes at exit equal those the analyzer computes
# from the same run's raw trace, and each thread's creator and start
# routine are recorded.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
  export BIN=$BATS_FILE_TMPDIR
  local src=$BATS_TEST_DIRNAME/../programs/line_access.c
  gcc -O1 -pthread "$src" -o "$BIN/line_access"
  gcc -O1 -pthread -fsanitize=thread -c "$src" -o "$BIN/line_access.o"
  gcc -O1 -pthread "$BATS_TEST_DIRNAME/../programs/kernel_copy.c" -o "$BIN/kernel_copy"
  local stress=$BATS_TEST_DIRNAME/../programs/line_stress.c
  gcc -O1 "$stress" -o "$BIN/line_stress"
  gcc -O1 -fsanitize=thread -c "$stress" -o "$BIN/line_stress.o"
  gcc "$BIN/line_stress.o" -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib" -o "$BIN/line_stress_tsan"
  local stencil=$BATS_TEST_DIRNAME/../../profiler/workloads/stencil3d.c
  gcc -O2 -fopenmp "$stencil" -o "$BIN/stencil"
  gcc -O2 -fopenmp -fsanitize=thread -c "$stencil" -o "$BIN/stencil.o"
  gcc "$BIN/stencil.o" -fopenmp -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib" -o "$BIN/stencil_tsan"
  gcc "$BIN/line_access.o" -pthread -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib" -o "$BIN/line_access_tsan"
  local regions=$BATS_TEST_DIRNAME/../programs/line_regions.c include=$BATS_TEST_DIRNAME/../../profiler/include
  gcc -O1 -pthread -I"$include" "$regions" -o "$BIN/line_regions"
  gcc -O1 -pthread -I"$include" -fsanitize=thread -c "$regions" -o "$BIN/line_regions.o"
  gcc "$BIN/line_regions.o" -pthread -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib" -o "$BIN/line_regions_tsan"
  gcc -O1 "$BATS_TEST_DIRNAME/../programs/fault_resume.c" -o "$BIN/fault_resume"
  local until=$BATS_TEST_DIRNAME/../programs/until_file.c
  gcc -O1 -pthread "$until" -o "$BIN/until_file"
  gcc -O1 -pthread -fsanitize=thread -c "$until" -o "$BIN/until_file.o"
  gcc "$BIN/until_file.o" -pthread -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib" -o "$BIN/until_file_tsan"
}

# Runs "$@" (a program told to stop by $BIN/stop) until its stderr matches
# $1, however long that takes (at most two minutes), then lets it finish;
# its stderr in $stderr, its status in $status.
run_until_printed() {
  local pattern=$1 err=$BIN/until.err
  shift
  rm -f "$BIN/stop" "$err"
  "$@" 2>"$err" >/dev/null &
  local pid=$!
  for _ in $(seq 1200); do
    grep -qE "$pattern" "$err" && break
    sleep 0.1
  done
  touch "$BIN/stop"
  wait "$pid" && status=0 || status=$?
  stderr=$(cat "$err")
}

# "thread region line-offset reads writes" for the program's four lines;
# the program prints the number of the first.
records() {
  awk -v first="$1" '$1 == "a" && $4 >= first && $4 < first + 4 { print $2, $3, $4 - first, $5, $6 }' "$2" | sort
}

expected="0 0 0 1000 0
0 0 1 0 500
0 0 2 10 0
0 0 3 22 12
1 0 0 0 300
1 0 2 20 0"

# Runs test program PROGRAM under BACKEND (valgrind: the tool on its plain
# build; compiler: its _tsan build), its sums and raw trace in
# $BIN/PROGRAM.BACKEND.{sums,trace}, and compares VIEW's records of that
# trace (the program prints the line numbers VIEW needs) with WANT.
expect_records() {  # VIEW WANT BACKEND PROGRAM
  local view=$1 want=$2 out=$BIN/$4.$3 first
  case $3 in
    valgrind)
      first=$(VALGRIND_LIB="$BUILD/lib/valgrind" valgrind -q --tool=slurmpin --out="$out.sums" --trace="$out.trace" \
        "$BIN/$4") ;;
    compiler) first=$(SLURM_PIN_SHARING="$out.sums" SLURM_PIN_TRACE="$out.trace" "$BIN/${4}_tsan") ;;
  esac
  run "$view" "$first" "$out.trace"
  [ "$output" = "$want" ] || { echo "$output"; false; }
}

@test "valgrind backend: exact counts per thread and line" {
  expect_records records "$expected" valgrind line_access
}

@test "compiler backend: exact counts per thread and line" {
  expect_records records "$expected" compiler line_access
}

# The records of tests/programs/line_stress.c: its hot line, the two lines
# its accesses cross, how many of its walk's lines have each count, and its
# 16 lines (those read other than 16 times by number, the others counted)
# and its gathered line.
stress_records() {
  local hot cross walk blocks gathered
  read -r hot cross walk blocks gathered <<<"$1"
  awk -v hot="$hot" -v cross="$cross" -v walk="$walk" -v blocks="$blocks" -v gathered="$gathered" '$1 == "a" {
      if ($4 == hot) print "hot", $2, $3, $5, $6
      else if ($4 == gathered) print "gathered", $2, $3, $5, $6
      else if ($4 == cross || $4 == cross + 1) print "crossed", $2, $3, $4 - cross, $5, $6
      else if ($4 >= blocks && $4 < blocks + 16 && $5 == 16 && $6 == 0) lines[$2 " " $3 " 16 0"]++
      else if ($4 >= blocks && $4 < blocks + 16) print "line", $2, $3, $4 - blocks, $5, $6
      else if ($4 >= walk && ($4 - walk) % 1024 == 0 && ($4 - walk) / 1024 < 1024) walked[$5 " " $6]++
    }
    END {
      for (k in walked) print "walk", k, walked[k]
      for (k in lines) print "lines", k, lines[k]
    }' "$2" | sort
}

stress_expected="crossed 0 0 0 200 100
crossed 0 0 1 200 100
gathered 0 0 70000 0
hot 0 0 70000 140000
line 0 0 7 116 0
line 0 0 8 116 0
lines 0 0 16 0 14
walk 3 0 1024"

# Off the fast paths (the Valgrind tool's inline IR, the compiler runtime's
# inlined hook): counters past their limit (32767), accesses across lines of
# every size and across the tool's blocks of lines, pages evicted from the
# cache and back, accesses through an index read from memory (the tool
# counts those in its table).
@test "valgrind backend: exact counts past the counters' limit, across lines, through cache evictions" {
  expect_records stress_records "$stress_expected" valgrind line_stress
}

@test "compiler backend: exact counts past the counters' limit, across lines, through cache evictions" {
  expect_records stress_records "$stress_expected" compiler line_stress
}

# "thread region-name reads writes" of tests/programs/line_regions.c's 8
# lines, the same for each line (else one row per line, which fails).
region_records() {
  awk -v first="$1" '$1 == "region" { name[$2] = $3 }
    $1 == "a" && $4 >= first && $4 < first + 8 { rows[$2 " " name[$3] " " $5 " " $6]++ }
    END { for (r in rows) print r, rows[r] }' "$2" | sort
}

region_expected="0 first 10 0 8
0 second 20 0 8
0 serial 30 0 8
1 first 5 0 8
1 second 7 0 8"

# One instruction reading one block of lines in two regions and serial
# code, by two threads, one of them waiting while the other changes the
# region: each access counts in the region it was made in.
@test "valgrind backend: exact counts per region, a site's counts in the region that made them" {
  expect_records region_records "$region_expected" valgrind line_regions
}

@test "compiler backend: exact counts per region" {
  expect_records region_records "$region_expected" compiler line_regions
}

# A profile from the backend's own sums (--keep-trace keeps the raw trace
# beside them), then one from that trace summed by the analyzer: the same
# matrices, working sets and DRR.
same_profile_both_ways() {
  local kind=$1 prog=$2 dir=$BIN/$1
  mkdir -p "$dir"
  run "$SLURM_PIN" profile --no-srun --app counts --threads 2 --backend "$kind" --keep-trace --workdir "$dir" \
    --output "$dir/from-sums.profile" -- "$prog"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  trace=$(sed -n 's/^trace kept in //p' <<<"$output")
  [ -s "$trace" ]
  run "$SLURM_PIN" profile --app counts --threads 2 --from-trace "$trace" --output "$dir/from-trace.profile"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  diff <(grep -vE '^(tool|date|binary_sha256) ' "$dir/from-sums.profile") \
       <(grep -vE '^(tool|date|binary_sha256) ' "$dir/from-trace.profile")
}

@test "valgrind backend: its sums equal the analyzer's sums of its raw trace" {
  same_profile_both_ways valgrind "$BIN/line_access"
}

@test "compiler backend: its sums equal the analyzer's sums of its raw trace" {
  same_profile_both_ways compiler "$BIN/line_access_tsan"
}

@test "both backends record who created each thread and what it runs" {
  grep -qx "thread 0 - main" "$BIN/line_access.valgrind.sums"
  grep -qx "thread 1 0 second" "$BIN/line_access.valgrind.sums"
  grep -qx "thread 0 - main" "$BIN/line_access.compiler.sums"
  grep -qx "thread 1 0 second" "$BIN/line_access.compiler.sums"
}

@test "valgrind backend: data the kernel copies counts for the thread that asked for it" {
  first=$(VALGRIND_LIB=$BUILD/lib/valgrind valgrind -q --tool=slurmpin --out="$BIN/k.sums" --trace="$BIN/k.trace" "$BIN/kernel_copy")
  # read() wrote the four lines for thread 0; thread 1 read each once.
  run records "$first" "$BIN/k.trace"
  [ "$output" = "0 0 0 0 1
0 0 1 0 1
0 0 2 0 1
0 0 3 0 1
1 0 0 1 0
1 0 1 1 0
1 0 2 1 0
1 0 3 1 0" ] || { echo "$output"; false; }
}

@test "both backends print a progress line while they run" {
  # The program runs until the line appears, however fast the machine is.
  run_until_printed "slurm-pin: profiling: " env VALGRIND_LIB="$BUILD/lib/valgrind" valgrind -q --tool=slurmpin \
    --progress=1 --out="$BIN/p.sums" "$BIN/until_file" "$BIN/stop"
  [ "$status" -eq 0 ]
  [[ "$stderr" =~ "slurm-pin: profiling: "[0-9]+" s, "[0-9]+" M accesses, "[0-9]+" threads, "[0-9]+" MiB of line tables" ]] ||
    { echo "$stderr"; false; }
  run_until_printed "slurm-pin: profiling: " env SLURM_PIN_PROGRESS=1 SLURM_PIN_SHARING="$BIN/c.sums" \
    "$BIN/until_file_tsan" "$BIN/stop"
  [ "$status" -eq 0 ]
  [[ "$stderr" =~ "slurm-pin: profiling: "[0-9]+" s, "[0-9]+" threads, "[0-9]+" MiB of line tables" ]] || { echo "$stderr"; false; }
}

# The tool has code translated with only the stack pointer exact at memory
# accesses until the program installs a SIGSEGV or SIGBUS handler, then
# retranslates it all with Valgrind's precision. A program that resumes
# from its own faults (tests/programs/fault_resume.c: a write barrier's
# pattern) runs as natively, and is profiled; with Valgrind told to keep
# only the stack pointer exact throughout, the same program does not (it
# counts calls twice or never ends), so the test sees the difference.
@test "valgrind backend: a program that resumes from its own faults runs as it does natively" {
  run "$BIN/fault_resume"
  [ "$status" -eq 0 ]
  [ "$output" = "calls 1000 faults 1000" ]
  run timeout 60 env VALGRIND_LIB="$BUILD/lib/valgrind" valgrind -q --tool=slurmpin --progress=0 --out="$BIN/fault.sums" "$BIN/fault_resume"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$output" = "calls 1000 faults 1000" ]
  grep -q "^lines [1-9]" "$BIN/fault.sums"
  run timeout 10 env VALGRIND_LIB="$BUILD/lib/valgrind" valgrind -q --vex-iropt-register-updates=sp-at-mem-access \
    --tool=slurmpin --progress=0 --out="$BIN/fault.imprecise" "$BIN/fault_resume"
  [ "$status" -ne 0 ] || [ "$output" != "calls 1000 faults 1000" ]
}
