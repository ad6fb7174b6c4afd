#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Malformed input to `slurm-pin place`: each gets exit status 1 and a single
# line naming the problem and the fix.

load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  CORE2=$TOPO/core2.xml
}

place() { run "$SLURM_PIN" place "$@"; }

@test "unknown strategy" {
  place --topology "$CORE2" --strategy packed
  expect_one_line_error "unknown strategy 'packed': use one of none|compact|"
}

@test "file: strategy without a path" {
  place --topology "$CORE2" --strategy file:
  expect_one_line_error "needs a path"
}

@test "unknown output format" {
  place --topology "$CORE2" --format yaml
  expect_one_line_error "unknown format 'yaml': use text, json, omp, likwid or placement"
}

@test "unknown granularity" {
  place --topology "$CORE2" --granularity socket
  expect_one_line_error "unknown granularity 'socket': use pu, core, l2, l3 or numa"
}

@test "granularity above a level the machine lacks" {
  place --topology "$CORE2" --granularity l3 --threads 1
  expect_one_line_error "this topology has no L3"
}

@test "unknown task layout" {
  place --topology "$CORE2" --task-layout cyclic
  expect_one_line_error "unknown task layout 'cyclic'"
}

@test "zero, negative and non-numeric counts" {
  place --topology "$CORE2" --threads 0
  expect_one_line_error "--threads wants a whole number from 1 to 65536, not '0'"
  place --topology "$CORE2" --threads two
  expect_one_line_error "not 'two'"
  place --topology "$CORE2" --tasks -1
  expect_one_line_error "--tasks wants a whole number"
  place --topology "$CORE2" --seed -5
  expect_one_line_error "--seed wants a whole number"
}

@test "unknown option and stray argument" {
  place --topology "$CORE2" --cpus 4
  expect_one_line_error "unknown or incomplete option '--cpus'" 2
  place --topology "$CORE2" extra
  expect_one_line_error "unexpected argument 'extra'" 2
  place --topology
  expect_one_line_error "unknown or incomplete option '--topology'" 2
}

@test "malformed CPU lists" {
  place --topology "$CORE2" --restrict 3-1
  expect_one_line_error "reversed range 3-1"
  place --topology "$CORE2" --restrict 0-3,x
  expect_one_line_error "expected a number at position 5"
  place --topology "$CORE2" --restrict 0,,1
  expect_one_line_error "--restrict"
}

@test "CPUs outside the machine" {
  place --topology "$CORE2" --restrict 0-9
  expect_one_line_error "CPU 8 is not in the topology, which has PUs 0-7"
}

@test "missing, malformed and garbage topologies" {
  place --topology "$T/none.xml"
  expect_one_line_error "no such file"
  place --topology "pack:2 core:x"
  expect_one_line_error "is not an hwloc synthetic description"
  echo "<topology><object" >"$T/bad.xml"
  place --topology "$T/bad.xml"
  expect_one_line_error "not a valid hwloc XML file"
}

@test "profile-guided strategy without a matrix" {
  place --topology "$CORE2" --strategy lpgp
  expect_one_line_error "strategy lpgp needs a sharing matrix: give a sharing profile or a matrix file"
}

@test "matrix file missing or a directory" {
  place --topology "$CORE2" --strategy gp --matrix "$T/nope.txt"
  expect_one_line_error "No such file or directory"
  place --topology "$CORE2" --strategy gp --matrix "$T"
  expect_one_line_error "not a regular file"
}

@test "matrix not square" {
  printf '0 1\n1 0 2\n' >"$T/m"
  place --topology "$CORE2" --strategy gp --matrix "$T/m"
  expect_one_line_error "$T/m:2: row has 3 values, expected 2"
  printf '0 1 1\n1 0 1\n' >"$T/m"
  place --topology "$CORE2" --strategy gp --matrix "$T/m"
  expect_one_line_error "matrix has 2 rows of 3 values"
}

@test "matrix with a word, a negative number, infinity" {
  printf '0 1\nfoo 0\n' >"$T/m"
  place --topology "$CORE2" --strategy gp --matrix "$T/m"
  expect_one_line_error "$T/m:2: 'foo' is not a number"
  printf '0 -1\n-1 0\n' >"$T/m"
  place --topology "$CORE2" --strategy gp --matrix "$T/m"
  expect_one_line_error "$T/m:1: negative entry -1"
  printf '0 1e999\n1 0\n' >"$T/m"
  place --topology "$CORE2" --strategy gp --matrix "$T/m"
  expect_one_line_error "'1e999' is not a number"
}

@test "matrix size and thread count disagree" {
  place --topology "$CORE2" --strategy lpgp --matrix "$MATRICES/pairs8.txt" --threads 4
  expect_one_line_error "describes 8 threads but 4 threads were asked for: profile with 4 threads or run 8"
}

@test "both a matrix and a profile" {
  place --topology "$CORE2" --strategy lpgp --matrix "$MATRICES/pairs8.txt" \
    --profile "$FIXTURES/profiles/pairs8.profile"
  expect_one_line_error "give either --matrix or --profile, not both" 2
}

@test "unknown model, region without profile, missing region" {
  place --topology "$CORE2" --strategy lpgp --profile "$FIXTURES/profiles/pairs8.profile" --model lru
  expect_one_line_error "unknown model 'lru': use simple or rw"
  place --topology "$CORE2" --strategy lpgp --region phase2
  expect_one_line_error "--region needs --profile"
  place --topology "$CORE2" --strategy lpgp --profile "$FIXTURES/profiles/pairs8.profile" --region phase9
  expect_one_line_error "no region 'phase9' (regions: phase2)"
  place --topology "$CORE2" --strategy lpgp --profile "$FIXTURES/profiles/pairs8.profile" --model rw
  expect_one_line_error "no 'rw' matrix (use the simple model"
}

@test "malformed profile" {
  printf 'slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n' >"$T/p"
  place --topology "$CORE2" --strategy lpgp --profile "$T/p"
  expect_one_line_error "matrix has 1 rows, expected 2"
  printf 'profile\n' >"$T/p"
  place --topology "$CORE2" --strategy lpgp --profile "$T/p"
  expect_one_line_error "$T/p:1: not a profile"
}

@test "malformed placement file" {
  printf 'slurm-pin-placement 1\ntask 0 0 1\n' >"$T/f"
  place --topology "$CORE2" --strategy "file:$T/f"
  expect_one_line_error "$T/f:2: missing ':'"
  printf 'slurm-pin-placement 1\ntask 0: 0 1\ntask 1: 1 2\n' >"$T/f"
  place --topology "$CORE2" --strategy "file:$T/f"
  expect_one_line_error "CPU 1 is given to two tasks"
}

@test "placement file using CPUs outside the allocation" {
  printf 'slurm-pin-placement 1\ntask 0: 0 5\n' >"$T/f"
  place --topology "$CORE2" --restrict 0-3 --strategy "file:$T/f"
  expect_one_line_error "task 0 thread 1 uses CPU 5, outside the allowed CPUs 0-3"
}

@test "placement file for another machine" {
  printf 'slurm-pin-placement 1\ntopology Package:4 Core:16 PU:16\ntask 0: 0 1\n' >"$T/f"
  place --topology "$CORE2" --strategy "file:$T/f"
  expect_one_line_error "computed for a machine with 'Package:4 Core:16 PU:16' but this one has"
}

@test "placement file with the wrong task or thread count" {
  printf 'slurm-pin-placement 1\ntask 0: 0 1\n' >"$T/f"
  place --topology "$CORE2" --strategy "file:$T/f" --tasks 2
  expect_one_line_error "has 1 task but the step runs 2 tasks"
  place --topology "$CORE2" --strategy "file:$T/f" --threads 3
  expect_one_line_error "has 2 threads per task but 3 threads were asked for"
}

@test "more threads than cores" {
  place --topology "$CORE2" --restrict 0-3 --threads 6
  expect_one_line_error "6 threads per task but each task has only 4 cores"
}

@test "more tasks than cores" {
  place --topology "$CORE2" --restrict 0-1 --tasks 3
  expect_one_line_error "3 tasks but only 2 cores in CPUs 0-1: run fewer tasks or allocate more CPUs"
}

@test "exit status: 0 success and help, 1 error, 2 the command line is wrong; -h everywhere" {
  for cmd in "-h" "--help" "place -h" "place --help" "profile -h" "profiles -h" "policy -h" "policy check --help" \
             "policy explain -h"; do
    run "$SLURM_PIN" $cmd
    [ "$status" -eq 0 ] || { echo "$cmd: $status $output"; return 1; }
    [[ "$output" == *"usage:"* ]] || { echo "$cmd: no usage: $output"; return 1; }
  done
  for cmd in "" "policy" "profiles" "policy frob" "profiles frob" "place --frob" "policy check" "profile --app a"; do
    run "$SLURM_PIN" $cmd
    [ "$status" -eq 2 ] || { echo "'$cmd': status $status: $output"; return 1; }
  done
  run "$SLURM_PIN" policy check "$T/missing.lua"
  [ "$status" -eq 1 ]
  run "$SLURM_PIN" --help
  [[ "$output" == *"policy "* && "$output" == *"exit status: 0 success, 1 error, 2"* ]]
}

@test "unknown command" {
  run "$SLURM_PIN" frobnicate
  [ "$status" -eq 2 ]
  [ "$output" = "slurm-pin: error: unknown command 'frobnicate' (see slurm-pin --help)" ]
}

# Costs bounded by the input and the machine: each of these ends at once.
quick_error() {
  local t0 t1
  t0=$(date +%s%N)
  place "$@"
  t1=$(date +%s%N)
  [ $(((t1 - t0) / 1000000)) -lt 2000 ] || { echo "took $(((t1 - t0) / 1000000)) ms"; return 1; }
}

@test "a FIFO as a placement file, profile, matrix or topology is refused at once" {
  mkfifo "$T/fifo"
  quick_error --topology "$CORE2" --strategy "file:$T/fifo"
  expect_one_line_error "$T/fifo: not a regular file"
  quick_error --topology "$CORE2" --strategy lpgp --profile "$T/fifo"
  expect_one_line_error "$T/fifo: not a regular file"
  quick_error --topology "$CORE2" --strategy lpgp --matrix "$T/fifo"
  expect_one_line_error "$T/fifo: not a regular file"
  quick_error --topology "$T/fifo" --strategy compact
  expect_one_line_error "topology $T/fifo: not a regular file"
}

@test "a range bomb in a placement file is refused before anything is expanded" {
  printf 'slurm-pin-placement 1\ntask 0: %s\n' "$(printf '0-1048576,%.0s' $(seq 200))0" >"$T/bomb"
  quick_error --topology "$CORE2" --strategy "file:$T/bomb"
  expect_one_line_error "task 0: CPU 1048576 is beyond this machine, whose highest CPU is 7"
  printf 'slurm-pin-placement 1\ntask 0: %s\n' "$(printf '0-65535,%.0s' $(seq 200))0" >"$T/wide"
  quick_error --topology "$CORE2" --strategy "file:$T/wide"
  expect_one_line_error "CPU 65535 is beyond this machine, whose highest CPU is 7"
  quick_error --topology "$CORE2" --strategy compact --restrict 0-99999999999
  expect_one_line_error "is beyond"
}

@test "synthetic topologies are bounded: past 16384 PUs, or of a size slurm-pin cannot tell, refused at once" {
  quick_error --topology "34 24 4 24" --strategy compact
  expect_one_line_error "has 78336 PUs, more than the 16384 a synthetic topology may have"
  quick_error --topology "pack:99999999 core:99999999 pu:99999999" --strategy compact
  expect_one_line_error "more than the 16384"
  # Found by fuzzing: hwloc reads tokens without an arity, or a count
  # before the type, in ways a bound could not follow.
  for t in "pack:2 co oe:4 pu:2" "2pu:2" "pack:2 core:4 pu:2x"; do
    quick_error --topology "$t" --strategy compact
    expect_one_line_error "is not an hwloc synthetic description"
  done
}

@test "a profile with many regions or a placement file with many tasks is checked in linear time" {
  {
    echo "slurm-pin-placement 1"
    for i in $(seq 0 19999); do echo "task $i: $i"; done
  } >"$T/many"
  quick_error --topology "$CORE2" --strategy "file:$T/many"
  expect_one_line_error "task 8: CPU 8 is beyond this machine"
}
