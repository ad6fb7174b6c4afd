#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# `cmake --install` honours --prefix and DESTDIR for every file, the
# Valgrind tool's links included, and the installed commands find their
# pieces relative to themselves.

load helpers
bats_require_minimum_version 1.5.0

@test "cmake --install --prefix DIR puts everything under DIR, and the installed profiler runs from there" {
  prefix=$BATS_TEST_TMPDIR/prefix
  run cmake --install "$BUILD" --prefix "$prefix"
  expect_status 0
  # Every installed path is under the prefix.
  ! grep -E '^-- (Installing|Up-to-date): ' <<<"$output" | grep -v -- "-- [A-Za-z-]*: $prefix/" || false
  tool=$(find "$prefix" -name slurmpin-amd64-linux)
  [ -n "$tool" ]
  vgdir=$(dirname "$tool")
  [ -L "$vgdir/vgpreload_core-amd64-linux.so" ]
  # The installed CLI and profiler, with no build tree in sight.
  gcc -O1 -pthread "$BATS_TEST_DIRNAME/../programs/line_access.c" -o "$BATS_TEST_TMPDIR/line_access"
  run env -u SLURM_PIN_LIBDIR "$prefix/bin/slurm-pin" profile --app la --threads 2 --no-srun \
    --output "$BATS_TEST_TMPDIR/la.profile" -- "$BATS_TEST_TMPDIR/line_access"
  expect_status 0
  grep -q '^threads 2$' "$BATS_TEST_TMPDIR/la.profile"
  # The installed launcher finds the installed thread library.
  run --separate-stderr "$prefix/bin/slurm-pin" run --thread-binding preload -- sh -c 'echo "$LD_PRELOAD"'
  expect_status 0
  [[ "$output" == "$prefix/"*"/slurm-pin/libslurm_pin_threads.so" ]]
  [ -f "$output" ]
}

@test "DESTDIR stages every file, links included, below it" {
  dest=$BATS_TEST_TMPDIR/dest
  run env DESTDIR="$dest" cmake --install "$BUILD" --prefix /opt/slurm-pin-test
  expect_status 0
  [ ! -e /opt/slurm-pin-test ]
  [ -x "$dest/opt/slurm-pin-test/bin/slurm-pin" ]
  [ -n "$(find "$dest/opt/slurm-pin-test" -type l -name 'vgpreload_core-amd64-linux.so')" ]
}

@test "libslurmpin.so.1 exports exactly the public API, installs only its header, and links for a consumer through pkg-config and CMake that calls all of it" {
  prefix=$BATS_TEST_TMPDIR/prefix
  cmake --install "$BUILD" --prefix "$prefix" >/dev/null
  lib=$(find "$prefix" -name 'libslurmpin.so.1' | head -1)
  [ -n "$lib" ]
  readelf -d "$lib" | grep -q 'SONAME.*libslurmpin.so.1'
  # What the library exports is what slurm_pin.h declares, nothing more or less.
  header=$(find "$prefix" -path '*/include/slurm_pin/slurm_pin.h')
  [ "$(find "$(dirname "$header")" -type f | wc -l)" -eq 1 ]  # the one public header
  declared=$(grep -oE '\bsp_[a-z0-9_]+ *\(' "$header" | tr -d ' (' | sort -u)
  exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBW]/ { sub(/@.*/, "", $3); print $3 }' | sort -u)
  diff <(echo "$declared") <(echo "$exported")
  # Small, and grown only on purpose: 37 functions of SLURMPIN_1, 4 of 1.1,
  # which carry their own version while the first ones keep theirs.
  [ "$(wc -l <<<"$exported")" -le 41 ]
  nm -D --defined-only "$lib" | grep -q ' sp_set_task_ranks@@SLURMPIN_1.1$'
  nm -D --defined-only "$lib" | grep -q ' sp_compute@@SLURMPIN_1$'
  # The front-end interface is the private library's, installed out of the
  # library path, and not in the public one.
  [ -f "$(dirname "$lib")/slurm-pin/libslurmpin_frontend.so" ]
  ! nm -D --defined-only "$lib" | grep -qw sp_check_strategy || false
  [ -z "$(find "$prefix" -name slurm_pin_frontend.h)" ]
  pc=$(dirname "$(find "$prefix" -name slurm-pin.pc)")
  src=$BATS_TEST_DIRNAME/../consumer
  # pkg-config, from wherever the prefix is.
  flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs slurm-pin)
  gcc "$src/consumer.c" -o "$BATS_TEST_TMPDIR/by-pc" $flags -Wl,-rpath,"$(dirname "$lib")"
  gpu_node=$BATS_TEST_DIRNAME/../fixtures/topologies/gpu-dgx1.xml
  run "$BATS_TEST_TMPDIR/by-pc" "$gpu_node"
  expect_status 0
  consumer_said_it
  # CMake's find_package.
  cmake -S "$src" -B "$BATS_TEST_TMPDIR/cm" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_RPATH="$(dirname "$lib")" >/dev/null
  cmake --build "$BATS_TEST_TMPDIR/cm" >/dev/null
  run "$BATS_TEST_TMPDIR/cm/consumer" "$gpu_node"
  expect_status 0
  consumer_said_it
  # Every function of the public header is called by the consumer or the launcher.
  for f in $declared; do grep -qw "$f" "$src/consumer.c" "$src/launcher.c" || { echo "no consumer calls $f"; false; }; done
  # docs/api.md's launcher: each task runs bound to its own CPUs, with its places.
  [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
  gcc "$src/launcher.c" -o "$BATS_TEST_TMPDIR/launcher" $flags -Wl,-rpath,"$(dirname "$lib")"
  run "$BATS_TEST_TMPDIR/launcher" 2 scatter sh -c 'echo "$(grep Cpus_allowed_list /proc/self/status | cut -f2) $OMP_PLACES"'
  expect_status 0
  [ "${#lines[@]}" -eq 2 ] && [ "${lines[0]%% *}" != "${lines[1]%% *}" ] || { echo "$output"; false; }
  for l in "${lines[@]}"; do [[ "$l" =~ ^[0-9,-]+\ \{[0-9,]+\}$ ]] || { echo "$l"; false; }; done
  run "$BATS_TEST_TMPDIR/launcher" 2 packed true
  [ "$status" -eq 1 ]
  [[ "$output" == "launcher: unknown strategy 'packed'"* ]]
  # Pthreads bound one by one by the installed thread library (-b preload):
  # three threads of one task on two CPUs, in creation order.
  gcc -O1 -pthread -I"$BATS_TEST_DIRNAME/../programs" "$BATS_TEST_DIRNAME/../programs/pthread_report.c" \
    -o "$BATS_TEST_TMPDIR/pthread_report"
  run --separate-stderr "$BATS_TEST_TMPDIR/launcher" -b preload -v 1 compact "$BATS_TEST_TMPDIR/pthread_report" 3
  expect_status 0
  [[ "$stderr" == *"launcher: task 0: strategy compact, 2 threads on CPUs "*", threads by preload"* ]] || { echo "$stderr"; false; }
  [ "$(grep -c 'mask [0-9]*$' <<<"$output")" -eq 3 ] || { echo "$output"; false; }  # each thread on one CPU
  [ "$(grep '^thread 0 ' <<<"$output" | awk '{ print $6 }')" != "$(grep '^thread 1 ' <<<"$output" | awk '{ print $6 }')" ]
  # MPI ranks by their traffic (-m): 0-2 and 1-3 exchange most, so each
  # pair shares a package of another machine (-T, -n: said, not run).
  printf '0 1 9 1\n1 0 1 9\n9 1 0 1\n1 9 1 0\n' >"$BATS_TEST_TMPDIR/traffic.txt"
  run --separate-stderr "$BATS_TEST_TMPDIR/launcher" -n -T "pack:2 core:2 pu:1" -m "$BATS_TEST_TMPDIR/traffic.txt" \
    4 compact true
  expect_status 0
  package() { grep "^launcher: task $1: " <<<"$stderr" | sed -E 's/.* on CPUs ([0-9]+).*/\1/' | awk '{ print int($1 / 2) }'; }
  [ "$(package 0)" = "$(package 2)" ] && [ "$(package 1)" = "$(package 3)" ] && [ "$(package 0)" != "$(package 1)" ] ||
    { echo "$stderr"; false; }
}

# What tests/consumer/consumer.c prints, line by line ($output).
consumer_said_it() {
  [ "${lines[0]}" = "strategies none compact scatter random lp-compact lp-scatter gp lpgp gplp file:PATH" ]
  # Scatter on "pack:2 core:2 pu:1", then on the program's own hwloc
  # topology ("pack:2 core:4 pu:1", sp_set_hwloc_topology).
  [ "${lines[1]}" = "0 2 1 3" ]
  [ "${lines[2]}" = "0 4 1 5" ]
  # lpgp by edges, then by a profile: threads 0 and 2, 1 and 3 in one package.
  [ "${lines[3]}" = "2 0 3 1" ]
  [ "${lines[4]}" = "2 0 3 1" ]
  # Four tasks by their traffic: 0 and 2, 1 and 3 in one package.
  [ "${lines[5]}" = "tasks 4-5 0-1 6-7 2-3" ]
  # smt 1 within CPUs 0-5: one hardware thread of each of 3 cores.
  [[ "${lines[6]}" == "describe strategy random, 6 threads on CPUs 0,2,4, places "*", mem interleave" ]]
  [[ "${lines[7]}" == "note 6 threads per task on 3 PUs (oversubscribed)"* ]]
  # DGX-1: each task its own GPU and the NIC beside it.
  [ "${lines[8]}" = "gpus 0:mlx5_0 1:mlx5_1 2:mlx5_0 3:mlx5_1 4:mlx5_2 5:mlx5_3 6:mlx5_2 7:mlx5_3" ]
  [ "${lines[9]}" = "task data yes" ]
}

@test "the manual pages render without warnings, and bash completes commands and strategies" {
  prefix=$BATS_TEST_TMPDIR/prefix
  cmake --install "$BUILD" --prefix "$prefix" >/dev/null
  for page in man1/slurm-pin.1 man5/slurm-pin-policy.5 man8/slurm_pin.8; do
    f=$(find "$prefix" -path "*/man/$page")
    [ -n "$f" ]
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
    [ -z "$warnings" ] || { echo "$page: $warnings"; return 1; }
    [ "$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$f" 2>/dev/null | grep -c .)" -gt 20 ]
  done
  LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$(find "$prefix" -name slurm_pin.8)" | grep -q "policy"
  completion=$(find "$prefix" -path '*bash-completion/completions/slurm-pin')
  run bash -c "source /usr/share/bash-completion/bash_completion; source '$completion';
    COMP_WORDS=(slurm-pin pl); COMP_CWORD=1; COMP_LINE='slurm-pin pl'; COMP_POINT=12; _slurm_pin; echo \${COMPREPLY[*]};
    COMP_WORDS=(slurm-pin place --strategy lp); COMP_CWORD=3; COMP_LINE='slurm-pin place --strategy lp'; COMP_POINT=29;
    _slurm_pin; echo \${COMPREPLY[*]};
    COMP_WORDS=(slurm-pin run --mem l); COMP_CWORD=3; COMP_LINE='slurm-pin run --mem l'; COMP_POINT=21;
    _slurm_pin; echo \${COMPREPLY[*]}"
  expect_status 0
  [ "${lines[0]}" = "place" ]
  [ "${lines[2]}" = "local" ]
  [ "${lines[1]}" = "lp-compact lp-scatter lpgp" ]
}
