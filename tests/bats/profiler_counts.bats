#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The recorders count exactly: a program with known reads and writes to four
# lines (tests/programs/line_access.c), under the valgrind tool and built
# for the compiler backend, gives the same, expected records. Atomics count
# one read and one write in both; an access across two lines counts in both.

load helpers

setup_file() {
  export BIN=$BATS_FILE_TMPDIR
  local src=$BATS_TEST_DIRNAME/../programs/line_access.c
  gcc -O1 -pthread "$src" -o "$BIN/line_access"
  gcc -O1 -pthread -fsanitize=thread -c "$src" -o "$BIN/line_access.o"
  gcc "$BIN/line_access.o" -pthread -L"$BUILD/lib" -lslurm_pin_tsan -Wl,-rpath,"$BUILD/lib" -o "$BIN/line_access_tsan"
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

@test "valgrind backend: exact counts per thread and line" {
  first=$(VALGRIND_LIB=$BUILD/lib/valgrind valgrind -q --tool=slurmpin --out="$BIN/vg.trace" "$BIN/line_access")
  run records "$first" "$BIN/vg.trace"
  [ "$output" = "$expected" ] || { echo "$output"; false; }
}

@test "compiler backend: exact counts per thread and line" {
  first=$(SLURM_PIN_TRACE=$BIN/cc.trace "$BIN/line_access_tsan")
  run records "$first" "$BIN/cc.trace"
  [ "$output" = "$expected" ] || { echo "$output"; false; }
}
