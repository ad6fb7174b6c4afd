# SPDX-License-Identifier: GPL-2.0-or-later
# Thin driver around CMake: `make` builds everything into build/, `make check` runs every test.
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all check check-debian13 check-debian-testing check-numa bench demo clean install fuzz
FUZZ_TIME ?= 300

all: $(BUILD)/Makefile
	cmake --build $(BUILD) -j2

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

check: all
	tests/run-all $(BUILD)

# The Slurm-facing suites in a Debian 13 root made with debootstrap (root;
# tests/debian/run): Slurm 24.11, gcc 14, clang 19, Valgrind 3.24.
check-debian13:
	tests/debian/run trixie

# The same in a Debian testing root: Slurm 26.05, gcc 16, clang 21 (late 2026).
check-debian-testing:
	tests/debian/run testing

# The NUMA checks on a real kernel: a QEMU guest of 2 packages x 2 cores x 2
# hardware threads and 2 NUMA nodes running Slurm and this checkout's
# packages (root, Debian 12; tests/numa/run, its image kept).
check-numa:
	tests/numa/run $(BUILD)

# Every libFuzzer harness for FUZZ_TIME seconds, then the sanitized unit tests.
fuzz:
	SLURM_PIN_FUZZ_SEED=$${SLURM_PIN_FUZZ_SEED:-0} tests/fuzz/run $(BUILD) $(FUZZ_TIME)

bench: all
	bench/placement/run $(BUILD)

demo: all
	scripts/demo $(BUILD)

install: all
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
