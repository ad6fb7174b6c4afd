# SPDX-License-Identifier: GPL-2.0-or-later
# Thin driver around CMake: `make` builds everything into build/, `make check` runs every test.
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all check bench demo clean install fuzz
FUZZ_TIME ?= 300

all: $(BUILD)/Makefile
	cmake --build $(BUILD) -j2

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

check: all
	tests/run-all $(BUILD)

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
