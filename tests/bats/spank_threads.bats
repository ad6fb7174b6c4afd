#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Thread binding beyond OpenMP variables, through the real local Slurm: the
# pthread shim (--pin-thread-binding=preload) and per-region pinning
# (--pin-phases, --pin-thread-binding=ompt) for GCC/libgomp and clang/libomp.

load slurm_helpers

PROGRAMS_DIR=$BATS_TEST_DIRNAME/../programs

setup_file() {
  slurm_up task/none
  gcc -O1 -pthread "$PROGRAMS_DIR/pthread_report.c" -o "$WORK/bin/preport"
  gcc -O1 -static -pthread "$PROGRAMS_DIR/pthread_report.c" -o "$WORK/bin/preport_static"
  gcc -O1 -fopenmp "$PROGRAMS_DIR/omp_and_pthreads.c" -o "$WORK/bin/both"
  gcc -O1 -pthread "$PROGRAMS_DIR/own_affinity.c" -o "$WORK/bin/own_affinity"
  gcc -O1 -fopenmp "$PROGRAMS_DIR/omp_phases.c" -o "$WORK/bin/phases"
  "$SP_CLANG" -O1 -fopenmp "$PROGRAMS_DIR/omp_phases.c" -o "$WORK/bin/phases_llvm" -Wl,-rpath,"$SP_LLVM_LIB"
  chmod -R a+rX "$WORK/bin"
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

placement() {  # NAME then lines
  local f=$WORK/$1
  shift
  printf 'slurm-pin-placement 1\n' >"$f"
  printf '%s\n' "$@" >>"$f"
  chmod 644 "$f"
  echo "$f"
}

# "CPU-of-thread-0 ..." from pthread_report's output.
pthread_cpus() { grep '^thread ' <<<"$output" | sort -k2,2n | awk '{ printf "%s%s", sep, $4; sep = " " }'; }
# ... and from omp_phases for region $1.
region_cpus() { grep "^region $1 thread " <<<"$output" | sort -k4,4n | awk '{ printf "%s%s", sep, $6; sep = " " }'; }

@test "preload: the N-th created pthread runs on the N-th place, the main thread on the first" {
  f=$(placement reverse.placement "task 0: 1 0 1 0")
  run --separate-stderr as_user srun -c2 --pin-strategy="file:$f" --pin-thread-binding=preload --pin-verbose \
    "$WORK/bin/preport" 4
  [ "$status" -eq 0 ]
  [ "$(pthread_cpus)" = "1 0 1 0" ]
  [[ "$stderr" == *", threads by preload"* ]]
}

@test "preload: helper threads are skipped by creation index, overflow wraps or fails as asked" {
  f=$(placement two.placement "task 0: 1 0")
  run as_user env SLURM_PIN_SKIP_MASK=1 srun -c2 --pin-strategy="file:$f" --pin-thread-binding=preload "$WORK/bin/preport" 3
  grep -q "^thread 1 cpu [01] mask 0,1$" <<<"$output"  # skipped: left on the task's CPUs
  grep -q "^thread 2 cpu 0 mask 0$" <<<"$output"       # takes the place thread 1 would have had
  run as_user srun -c2 --pin-strategy="file:$f" --pin-thread-binding=preload "$WORK/bin/preport" 4
  [ "$(pthread_cpus)" = "1 0 1 0" ]                    # wraps by default
  run --separate-stderr as_user env SLURM_PIN_OVERFLOW=error srun -c2 --pin-strategy="file:$f" \
    --pin-thread-binding=preload "$WORK/bin/preport" 4
  [[ "$stderr" == *"slurm-pin: error: thread 2 has no place (the placement has 2): run fewer threads, or set SLURM_PIN_OVERFLOW=wrap"* ]]
}

@test "per-region pinning from a placement file (GCC, libgomp): every thread on its region's CPU" {
  f=$(placement regions.placement "task 0: 0 0 1 1 0 0 1 1" \
    "task 0 region main._omp_fn.0: 0 0 1 1 0 0 1 1" "task 0 region main._omp_fn.1: 0 0 0 0 1 1 1 1")
  run --separate-stderr as_user srun -c2 --pin-strategy="file:$f" --pin-phases --pin-verbose "$WORK/bin/phases" 2
  [ "$status" -eq 0 ]
  [ "$(region_cpus 1)" = "0 0 1 1 0 0 1 1" ]
  [ "$(region_cpus 2)" = "0 0 0 0 1 1 1 1" ]
  [[ "$stderr" == *", threads by ompt, 2 regions"* ]]
}

# Pairs each region's designed pairs: threads sharing a CPU.
same_cpu() {  # REGION A B: threads A and B of REGION ran on one CPU
  [ "$(grep "^region $1 thread $2 " <<<"$output" | awk '{ print $6 }')" = \
    "$(grep "^region $1 thread $3 " <<<"$output" | awk '{ print $6 }')" ]
}

@test "per-region placements computed from a profile's regions, GCC and clang programs" {
  for program in phases phases_llvm; do
    (cd "$CLUSTER" && "$SLURM_PIN" profile --app "$program" --threads 8 --cpus 2 --store "$STORE" -- "$WORK/bin/$program" 2) >/dev/null
    run --separate-stderr as_user env OMP_NUM_THREADS=8 srun -c2 --pin-strategy=lp-compact --pin-profile="$program" --pin-phases \
      --pin-oversubscribe "$WORK/bin/$program" 2
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    [ -z "$(srun_said)" ] || { echo "$program: $stderr"; return 1; }  # no runtime warnings
    # 8 threads on 2 cores: each region keeps its own pairs on one CPU.
    for p in "0 4" "1 5" "2 6" "3 7"; do same_cpu 1 $p; done
    for p in "0 1" "2 3" "4 5" "6 7"; do same_cpu 2 $p; done
    { ! same_cpu 1 0 1 || ! same_cpu 2 0 4; } || false  # and the two regions differ
  done
}

# Swaps the two threads of region main._omp_fn.0 in a placement cache entry
# (root's edit, in place); prints their CPUs as they are now.
swap_first_region() {
  awk '/^region [01] / { swap = $3 == "main._omp_fn.0"; n = 0 }
       swap && /^th / { held[n++] = $0; if (n == 2) { print held[1]; print held[0] } next }
       { print }' "$1" >"$CLUSTER/entry"
  cat "$CLUSTER/entry" >"$1"
  awk '/^region [01] / { on = $3 == "main._omp_fn.0" } on && /^th / { printf "%s%s", sep, $4; sep = " " }' "$1"
}

# The store profile "cached" of bin/phases, made once for the tests below.
cached_profile() {
  [ -d "$STORE/cached" ] ||
    (cd "$CLUSTER" && "$SLURM_PIN" profile --app cached --threads 2 --cpus 2 --store "$STORE" -- "$WORK/bin/phases" 2) >/dev/null
}

# A step of two threads placed by STRATEGY from "cached" per region, then
# the rest of the srun command line; fails with srun's errors.
cached_step() {  # STRATEGY SRUN_ARGS...
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -c2 --pin-strategy="$1" --pin-profile=cached --pin-phases \
    "${@:2}"
  [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
}

@test "the node's next step with the same inputs takes its per-region places from the node's placement cache" {
  cached_profile
  rm -rf "$CLUSTER/pin-run/placements"
  cached_step lpgp "$WORK/bin/phases" 2
  first=$(region_cpus 1)
  [ "$first" = "0 1" ] || [ "$first" = "1 0" ]
  # Kept by root, readable, writable by nobody else.
  entries=("$CLUSTER"/pin-run/placements/placement-*)
  [ "${#entries[@]}" -eq 1 ]
  [ "$(stat -c '%U %a' "${entries[0]}")" = "root 644" ]
  run as_user sh -c "echo forged > '$CLUSTER/pin-run/placements/placement-0000000000000000'"
  [ "$status" -ne 0 ]
  # Root swaps the first region's two threads in the kept entry: the next
  # step with the same inputs follows it, so its places came from there.
  swap_first_region "${entries[0]}" >/dev/null
  cached_step lpgp "$WORK/bin/phases" 2
  [ "$(region_cpus 1)" = "$(awk '{ print $2, $1 }' <<<"$first")" ]
  # Other inputs (the whole-run placement only) are computed and kept apart.
  cached_step lpgp --pin-verbose "$WORK/bin/phases" 2
  entries=("$CLUSTER"/pin-run/placements/placement-*)
  [ "${#entries[@]}" -eq 1 ]  # --pin-verbose changes no input
  cached_step gplp "$WORK/bin/phases" 2
  entries=("$CLUSTER"/pin-run/placements/placement-*)
  [ "${#entries[@]}" -eq 2 ]
}

@test "a dry run of a step (an admin warming a node) fills the placement cache the real step reads" {
  cached_profile
  rm -rf "$CLUSTER/pin-run/placements"
  cached_step lpgp --pin-dryrun true
  entries=("$CLUSTER"/pin-run/placements/placement-*)
  [ "${#entries[@]}" -eq 1 ]
  want=$(swap_first_region "${entries[0]}")
  cached_step lpgp "$WORK/bin/phases" 2
  [ "$(region_cpus 1)" = "$want" ]
  entries=("$CLUSTER"/pin-run/placements/placement-*)
  [ "${#entries[@]}" -eq 1 ]
}

@test "a GCC program run on LLVM libomp's GOMP ABI is pinned per region too" {
  # libomp implements libgomp's ABI: a directory with libgomp.so.1 -> libomp.so.5
  # first on LD_LIBRARY_PATH runs an unmodified GCC binary on libomp.
  mkdir -p "$WORK/gomp-on-omp"
  ln -sf "$SP_LLVM_LIB/libomp.so.5" "$WORK/gomp-on-omp/libgomp.so.1"
  f=$(placement regions2.placement "task 0: 0 0 1 1 0 0 1 1" \
    "task 0 region main._omp_fn.0: 0 0 1 1 0 0 1 1" "task 0 region main._omp_fn.1: 0 0 0 0 1 1 1 1")
  run --separate-stderr as_user env LD_LIBRARY_PATH="$WORK/gomp-on-omp" srun -c2 --pin-strategy="file:$f" \
    --pin-phases "$WORK/bin/phases" 2
  [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
  [ "$(region_cpus 1)" = "0 0 1 1 0 0 1 1" ]
  [ "$(region_cpus 2)" = "0 0 0 0 1 1 1 1" ]
}

@test "--pin-thread-binding=env sets no preload" {
  run as_user srun -c2 --pin-strategy=compact --pin-thread-binding=env env
  ! grep -q "^LD_PRELOAD=" <<<"$output" || false
  grep -q "^SLURM_PIN_THREAD_BINDING=env$" <<<"$output"
}

@test "auto, the default: a pthread program's threads on the places the verbose line names, the main thread first" {
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-verbose "$WORK/bin/preport" 2
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$stderr" == *"places {0},{1}"*", threads by OMP_PLACES or in creation order (auto)"* ]] || { echo "$stderr"; false; }
  [ "$(pthread_cpus)" = "0 1" ]
  grep -q "^thread 0 cpu 0 mask 0$" <<<"$output" && grep -q "^thread 1 cpu 1 mask 1$" <<<"$output"
}

@test "auto: an OpenMP program is bound by OMP_PLACES, a program that is both runs its own threads on the task's CPUs" {
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -c2 --pin-strategy=scatter --pin-verbose "$WORK/bin/omp_gomp"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  claims_are_real
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -c2 --pin-strategy=compact "$WORK/bin/both"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  grep -q "^omp 0 mask 0$" <<<"$output" && grep -q "^omp 1 mask 1$" <<<"$output"
  grep -q "^own mask 0,1$" <<<"$output"  # not squeezed onto the place of the thread that made it
}

@test "auto: a program nobody here wrote (pigz) runs its threads on the places; the shell around it stays unbound" {
  command -v pigz >/dev/null || skip "pigz is not installed"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-verbose sh -c \
    'echo "shell $(grep Cpus_allowed_list /proc/self/status | cut -f2)"; pigz -p 2 -c </dev/zero >/dev/null & p=$!; sleep 2
     for t in $(ls /proc/$p/task | sort -n); do grep Cpus_allowed_list /proc/$p/task/$t/status | cut -f2; done | tr "\n" " "; kill $p'
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  grep -q "^shell 0-1$" <<<"$output"
  masks=$(tail -1 <<<"$output")
  # The main thread on the first place, every thread on one CPU of the step, both CPUs used.
  [[ "$masks" == "0 "* ]] || { echo "$masks"; false; }
  ! grep -qE "(^| )0-1( |$)" <<<"$masks" || { echo "$masks"; false; }
  grep -qE "(^| )1( |$)" <<<"$masks" || { echo "$masks"; false; }
}

@test "auto: a program that binds its own threads is told once that they are not on the places" {
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-verbose "$WORK/bin/own_affinity" 2
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(grep -c "note: $WORK/bin/own_affinity sets its own thread affinity: those threads run where it puts them" <<<"$stderr")" -eq 1 ] ||
    { echo "$stderr"; false; }
  # Where it put them (its last CPU), whatever the places said.
  grep -q "^thread 0 cpu 1 mask 1$" <<<"$output" && grep -q "^thread 1 cpu 1 mask 1$" <<<"$output"
  # Without --pin-verbose, nothing is said; OpenMP binding its team is slurm-pin's own.
  run --separate-stderr as_user srun -c2 --pin-strategy=compact "$WORK/bin/own_affinity" 2
  [ -z "$(srun_said)" ] || { echo "$stderr"; false; }
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -c2 --pin-strategy=compact --pin-verbose "$WORK/bin/both"
  [[ "$stderr" != *"sets its own thread affinity"* ]] || { echo "$stderr"; false; }
}

@test "auto: a statically linked program is placed by OMP_PLACES alone, and verbose says so" {
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-verbose "$WORK/bin/preport_static" 2
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(grep -c "note: threads bound by OMP_PLACES only (.*statically linked" <<<"$stderr")" -eq 1 ] || { echo "$stderr"; false; }
  [[ "$stderr" != *"(auto)"* ]] || { echo "$stderr"; false; }
  grep -q "^thread 1 cpu [01] mask 0,1$" <<<"$output"  # where verbose said it would be: not bound
}

@test "--pin-threads, 0.1's spelling, still binds and says what to write instead" {
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-threads=preload sh -c 'echo "$SLURM_PIN_THREAD_BINDING"'
  [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
  [ "$output" = "preload" ]
  [ "$(srun_said | grep -c .)" -eq 1 ]
  [[ "$stderr" == *"warning: --pin-threads is deprecated: use --pin-thread-binding=preload"* ]]
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-thread-binding=preload true
  [ -z "$(srun_said)" ] || { echo "$stderr"; false; }
}

@test "thread-binding mistakes are one srun error" {
  run --separate-stderr as_user srun --pin-thread-binding=magic true
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--pin-thread-binding: unknown thread binding 'magic': use env (OpenMP variables), preload"
  run --separate-stderr as_user srun --pin-strategy=compact --pin-phases --pin-thread-binding=env true
  expect_one_error_line srun "--pin-phases moves threads at every parallel region, which needs --pin-thread-binding=ompt, not env"
  run --separate-stderr as_user srun --pin-strategy=compact --pin-phases true
  expect_one_error_line srun "--pin-phases needs a profile with parallel regions"
  f=$(placement outside.placement "task 0: 0" "task 0 region r: 1")
  run --separate-stderr as_user srun -n1 -c1 --pin-strategy="file:$f" --pin-phases true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"region r task 0 uses CPU 1, outside the task's CPUs"* ]] ||
    [[ "$stderr" == *"outside the allowed CPUs"* ]]
  node_is_idle
}
