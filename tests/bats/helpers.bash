# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the bats suites: paths to the built CLI and the fixtures.
BUILD=${SLURM_PIN_BUILD:-$BATS_TEST_DIRNAME/../../build}
SLURM_PIN=${SLURM_PIN:-$BUILD/bin/slurm-pin}
FIXTURES=$BATS_TEST_DIRNAME/../fixtures
TOPO=$FIXTURES/topologies
MATRICES=$FIXTURES/matrices
# The LLVM this machine has: SP_CLANG, SP_CLANGXX, SP_LLVM_LIB.
. "$BATS_TEST_DIRNAME/../../scripts/llvm-env"

# Fails with the command's output when it did not exit with the given status.
expect_status() {
  if [ "$status" -ne "$1" ]; then
    echo "expected status $1, got $status; output:"
    echo "$output"
    return 1
  fi
}

# The output is exactly one line, starting "slurm-pin: error: " and holding
# $1; the status is $2 (default 1: an error; 2: the command line is wrong).
expect_one_line_error() {
  expect_status "${2:-1}"
  [ "${#lines[@]}" -eq 1 ] || { echo "not one line: $output"; return 1; }
  [[ "$output" == "slurm-pin: error: "* ]] || { echo "no error prefix: $output"; return 1; }
  [[ "$output" == *"$1"* ]] || { echo "missing '$1' in: $output"; return 1; }
}
