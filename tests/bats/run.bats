#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# `slurm-pin run`: the binding core as a launcher outside Slurm, on this
# machine's real CPUs. The same core as the SPANK plugin (the plugin's suites
# compare the two), so the same placements, environment and errors.
load helpers
bats_require_minimum_version 1.5.0

setup_file() {
  export BIN=$BATS_FILE_TMPDIR/bin
  mkdir -p "$BIN"
  gcc -O1 -fopenmp "$BATS_TEST_DIRNAME/../programs/omp_report.c" -o "$BIN/omp_report" -lnuma
  gcc -O1 -pthread "$BATS_TEST_DIRNAME/../programs/pthread_report.c" -o "$BIN/pthread_report"
}

# This process's CPUs, as the kernel lists them.
my_cpus() { awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status; }

@test "compact: the OpenMP threads run on the places slurm-pin place computes for these CPUs" {
  cpus=$(my_cpus)
  run --separate-stderr "$SLURM_PIN" run --strategy compact --threads 2 -- "$BIN/omp_report"
  expect_status 0
  want=$("$SLURM_PIN" place --restrict "$cpus" --strategy compact --threads 2 --format omp)
  [[ "$output" == *"env OMP_PLACES=$want"* ]]
  [[ "$output" == *"env OMP_NUM_THREADS=2"* ]]
  [[ "$output" == *"env SLURM_PIN_STRATEGY=compact"* ]]
  # Thread i runs on the i-th place's CPU.
  for i in 0 1; do
    place=$(tr -d '{}' <<<"$want" | cut -d, -f$((i + 1)))
    grep -q "thread $i cpu $place mask $place$" <<<"$output"
  done
}

@test "within its CPUs only: under taskset every thread stays on the one CPU left" {
  cpu=$(my_cpus | cut -d, -f1 | cut -d- -f1)
  run --separate-stderr taskset -c "$cpu" "$SLURM_PIN" run --verbose -- "$BIN/omp_report"
  expect_status 0
  [[ "$stderr" == "slurm-pin: $(hostname): strategy compact, 1 thread on CPUs $cpu, places {$cpu}, mem none, threads by OMP_PLACES or in creation order (auto)" ]]
  grep -q "thread 0 cpu $cpu mask $cpu$" <<<"$output"
  # More threads than the CPUs left share them, as srun does by default
  # (a note says so); --no-oversubscribe makes it the engine's one-line error.
  run --separate-stderr taskset -c "$cpu" "$SLURM_PIN" run --threads 2 --verbose -- "$BIN/omp_report"
  expect_status 0
  grep -q "thread 0 cpu $cpu mask $cpu$" <<<"$output" && grep -q "thread 1 cpu $cpu mask $cpu$" <<<"$output"
  [[ "$stderr" == *"note: 2 threads per task on 1 core (oversubscribed)"* ]] || { echo "$stderr"; false; }
  run taskset -c "$cpu" "$SLURM_PIN" run --threads 2 --no-oversubscribe -- "$BIN/omp_report"
  expect_one_line_error "2 threads per task but each task has only 1 core"
}

@test "preload: pthreads bound in creation order by the thread library" {
  run --separate-stderr "$SLURM_PIN" run --strategy scatter --threads 2 --thread-binding preload --verbose \
    -- "$BIN/pthread_report" 2
  expect_status 0
  [[ "$stderr" == *", threads by preload" ]]
  cpus=($("$SLURM_PIN" place --restrict "$(my_cpus)" --strategy scatter --threads 2 --format likwid | tr , ' '))
  grep -q "thread 0 cpu ${cpus[0]} mask ${cpus[0]}$" <<<"$output"
  grep -q "thread 1 cpu ${cpus[1]} mask ${cpus[1]}$" <<<"$output"
}

@test "a profile-guided strategy with a profile file; memory policy; a user's OMP_NUM_THREADS kept" {
  run --separate-stderr "$SLURM_PIN" run --strategy lpgp --profile "$FIXTURES/profiles/pairs2.profile" \
    --mem local -- "$BIN/omp_report"
  expect_status 0
  [[ "$output" == *"env SLURM_PIN_STRATEGY=lpgp"* ]]
  [[ "$output" == *"mempolicy local"* ]]
  run --separate-stderr env OMP_NUM_THREADS=1 "$SLURM_PIN" run --strategy scatter -- "$BIN/omp_report"
  expect_status 0
  [[ "$output" == *"env OMP_NUM_THREADS=1"* ]]
  [ "$(grep -c ' thread ' <<<"$output")" -eq 1 ]
}

@test "a forged SLURM_PIN_POLICY_DECISION is not passed on; dry run binds nothing and still runs" {
  run --separate-stderr env SLURM_PIN_POLICY_DECISION="slurm-pin: forged" SLURM_PIN_POLICY="slurm-pin: forged" \
    "$SLURM_PIN" run -- sh -c 'echo "[${SLURM_PIN_POLICY_DECISION-unset}] [${SLURM_PIN_POLICY-unset}]"'
  [ "$output" = "[unset] [unset]" ]
  before=$(my_cpus)
  run --separate-stderr "$SLURM_PIN" run --dryrun --strategy scatter -- sh -c 'awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status; echo "[${OMP_PLACES-unset}]"'
  expect_status 0
  [[ "$stderr" == "slurm-pin: dry run: $(hostname): strategy scatter,"* ]]
  [ "${lines[0]}" = "$before" ]
  [ "${lines[1]}" = "[unset]" ]
}

@test "errors: one line, exit 1 for bad input, 2 for a wrong command line, 127 for a missing program" {
  run "$SLURM_PIN" run --strategy packed -- true
  expect_one_line_error "unknown strategy 'packed'"
  run "$SLURM_PIN" run --strategy gp -- true
  expect_one_line_error "needs a sharing profile" 2
  run "$SLURM_PIN" run --profile "$BATS_TEST_TMPDIR/none.profile" --strategy gp -- true
  expect_one_line_error "none.profile"
  mkfifo "$BATS_TEST_TMPDIR/fifo"
  run timeout 10 "$SLURM_PIN" run --profile "$BATS_TEST_TMPDIR/fifo" --strategy gp -- true
  expect_one_line_error "not a regular file"
  run "$SLURM_PIN" run --mem spread -- true
  expect_one_line_error "unknown memory policy 'spread'"
  run env OMP_NUM_THREADS=lots "$SLURM_PIN" run -- true
  expect_one_line_error "OMP_NUM_THREADS='lots' is not a thread count"
  run "$SLURM_PIN" run --phases --thread-binding env --profile "$FIXTURES/profiles/pairs2.profile" -- true
  expect_one_line_error "needs --thread-binding=ompt" 2
  run "$SLURM_PIN" run --strategy compact
  expect_one_line_error "no program to run" 2
  run "$SLURM_PIN" run --bogus -- true
  expect_one_line_error "unknown or incomplete option '--bogus'" 2
  run -127 "$SLURM_PIN" run -- "$BATS_TEST_TMPDIR/no-such-program"
  expect_one_line_error "cannot run" 127
  run "$SLURM_PIN" run -h
  expect_status 0
  [[ "${lines[0]}" == "usage: slurm-pin run"* ]]
}

@test "the program's exit status and arguments pass through unchanged" {
  run "$SLURM_PIN" run -- sh -c 'echo "$1|$2"; exit 7' sh --strategy "a b"
  expect_status 7
  [ "$output" = "--strategy|a b" ]
}

@test "the runtime in a job's batch script asks srun for an external launcher's step, for a launcher's daemon only" {
  # Open MPI 5's prterun starts its daemons with `srun ... prted` and no
  # --external-launcher: Slurm 23.11 and later would give that step one CPU
  # per node. A stand-in srun prints what it was given.
  mkdir -p "$BATS_TEST_TMPDIR/path"
  printf '#!/bin/sh\necho "external=${SLURM_EXTERNAL_LAUNCHER-unset} args=$*"\n' >"$BATS_TEST_TMPDIR/path/srun"
  chmod +x "$BATS_TEST_TMPDIR/path/srun"
  job() {
    env PATH="$BATS_TEST_TMPDIR/path:$PATH" LD_PRELOAD="$BUILD/lib/libslurm_pin_threads.so" \
      SLURM_PIN_RANK_OPTIONS="strategy=compact launchers=orted,prted" "$@"
  }
  run job bash -c 'srun --ntasks-per-node=1 --cpu-bind=none prted --prtemca ess slurm'   # execve through PATH
  [ "$output" = "external=slurm-pin args=--ntasks-per-node=1 --cpu-bind=none prted --prtemca ess slurm" ]
  run job sh -c "exec $BATS_TEST_TMPDIR/path/srun -N2 /usr/bin/orted"
  [ "$output" = "external=slurm-pin args=-N2 /usr/bin/orted" ]
  run job /usr/bin/python3 -c 'import os; os.posix_spawnp("srun", ["srun", "prted"], os.environ); os.wait()'
  [ "$output" = "external=slurm-pin args=prted" ]
  # The user's own steps, any other program, and a value the user chose: untouched.
  run job bash -c 'srun -n2 ./app prted-like'
  [ "$output" = "external=unset args=-n2 ./app prted-like" ]
  run job bash -c 'SLURM_EXTERNAL_LAUNCHER=0 srun prted'
  [ "$output" = "external=0 args=prted" ]
  # Outside a job slurm-pin prepared (no ranks' request), nothing changes.
  run env PATH="$BATS_TEST_TMPDIR/path:$PATH" LD_PRELOAD="$BUILD/lib/libslurm_pin_threads.so" bash -c 'srun prted'
  [ "$output" = "external=unset args=prted" ]
}
