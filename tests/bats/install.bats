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

@test "libslurmpin.so.1 exports exactly the public API, installs only its header, and links for a consumer through pkg-config and CMake" {
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
  run "$BATS_TEST_TMPDIR/by-pc"
  expect_status 0
  # Scatter on "pack:2 core:2 pu:1", then on the program's own hwloc
  # topology ("pack:2 core:4 pu:1", sp_set_hwloc_topology).
  [ "$output" = $'0 2 1 3\n0 4 1 5' ]
  # CMake's find_package.
  cmake -S "$src" -B "$BATS_TEST_TMPDIR/cm" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_RPATH="$(dirname "$lib")" >/dev/null
  cmake --build "$BATS_TEST_TMPDIR/cm" >/dev/null
  run "$BATS_TEST_TMPDIR/cm/consumer"
  expect_status 0
  [ "$output" = $'0 2 1 3\n0 4 1 5' ]
  # docs/api.md's launcher: each task runs bound to its own CPUs, with its places.
  [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
  gcc "$src/launcher.c" -o "$BATS_TEST_TMPDIR/launcher" $flags -Wl,-rpath,"$(dirname "$lib")"
  run "$BATS_TEST_TMPDIR/launcher" 2 scatter sh -c 'echo "$(grep Cpus_allowed_list /proc/self/status | cut -f2) $OMP_PLACES"'
  expect_status 0
  [ "${#lines[@]}" -eq 2 ] && [ "${lines[0]%% *}" != "${lines[1]%% *}" ] || { echo "$output"; false; }
  for l in "${lines[@]}"; do [[ "$l" =~ ^[0-9,-]+\ \{[0-9,]+\}$ ]] || { echo "$l"; false; }; done
  run "$BATS_TEST_TMPDIR/launcher" 2 packed true
  [ "$status" -eq 1 ] && [[ "$output" == "launcher: unknown strategy 'packed'"* ]]
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
