#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# `cmake --install` honours --prefix and DESTDIR for every file, the
# Valgrind tool's links included, and the installed commands find their
# pieces relative to themselves.

load helpers

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
}

@test "DESTDIR stages every file, links included, below it" {
  dest=$BATS_TEST_TMPDIR/dest
  run env DESTDIR="$dest" cmake --install "$BUILD" --prefix /opt/slurm-pin-test
  expect_status 0
  [ ! -e /opt/slurm-pin-test ]
  [ -x "$dest/opt/slurm-pin-test/bin/slurm-pin" ]
  [ -n "$(find "$dest/opt/slurm-pin-test" -type l -name 'vgpreload_core-amd64-linux.so')" ]
}
