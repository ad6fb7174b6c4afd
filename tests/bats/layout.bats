#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The architecture as rules the tree must keep: the engine speaks no Slurm,
# and the components use one another only through their public headers.

load helpers

ROOT=$BATS_TEST_DIRNAME/../..

# Quoted names of variables of Slurm (not slurm-pin's own SLURM_PIN_*).
slurm_names_in() {
  grep -rnoE '"SLURM_[A-Z_]+' "$@" | grep -v '"SLURM_PIN_' || true
}

@test "the engine (placements/src, shared, its API) names no Slurm variable" {
  run slurm_names_in "$ROOT/placements/src" "$ROOT/placements/shared" "$ROOT/placements/include"
  echo "$output"
  [ -z "$output" ]
  # The rule can fail: the front ends' adapter does name them.
  [ -n "$(slurm_names_in "$ROOT/common/slurm_binding_env.c")" ]
}

@test "the API names no Slurm function and the engine calls no Slurm" {
  run grep -rnE 'slurm_cpu_bind|policy_decision|#include <slurm/' "$ROOT/placements/include" "$ROOT/placements/src" "$ROOT/placements/shared"
  echo "$output"
  [ "$status" -eq 1 ]
}

# The quoted includes of files under $1 that name a header of folder $2.
includes_of() {
  local from=$1 folder=$2 h
  for h in "$ROOT/$folder"/*.h "$ROOT/$folder"/*.hh "$ROOT/$folder"/*/*.h "$ROOT/$folder"/*/*.hh; do
    [ -e "$h" ] || continue
    grep -rlE "#include \"$(basename "$h")\"" "$ROOT/$from" 2>/dev/null | sed "s|^|$(basename "$h"): |"
  done
}

@test "placements, the plugin, the profiler, the policy and the runtime use none of each other's insides" {
  local out=""
  for pair in "placements spank_plugin" "placements profiler" "placements runtime" "placements lua" \
    "spank_plugin profiler" "profiler spank_plugin" "spank_plugin lua" "lua spank_plugin" \
    "runtime spank_plugin" "runtime profiler" "profiler runtime" "spank_plugin runtime"; do
    set -- $pair
    out+=$(includes_of "$1" "$2")
  done
  echo "$out"
  [ -z "$out" ]
}

# Engine headers (placements/src) a file includes, by their include path.
engine_includes_of() {
  local f=$1 inc
  grep -oE '#include "[^"]+"' "$f" | sed 's/#include "//; s/"$//' | while read -r inc; do
    [ -e "$ROOT/placements/src/$inc" ] && echo "$(basename "$f"): $inc"
  done
  true
}

# The engine's folders each use only those below them (placements/README.md):
# shared/ (input <- sharing) <- topology <- strategies <- engine.cc <- binding.
@test "the engine's folders use only the folders below them" {
  local src=$ROOT/placements/src shared=$ROOT/placements/shared out="" pair f
  for pair in "topology strategies" "topology binding" "strategies binding"; do
    set -- $pair
    out+=$(grep -lE "#include \"$2/" "$src/$1"/* 2>/dev/null | sed "s|^|$1 uses $2: |")
  done
  out+=$(grep -lE '#include "engine.hh"' "$src"/{topology,strategies}/* 2>/dev/null | sed 's|^|uses the engine: |')
  # The node's placement cache and the engine: the engine uses the cache,
  # both use placement.hh (a request and its result), never the reverse.
  out+=$(grep -lE '#include "engine.hh"' "$src"/placement_cache.* "$src"/placement.hh | sed 's|^|uses the engine: |')
  out+=$(grep -lE '#include "sharing/' "$shared"/input/* 2>/dev/null | sed 's|^|input uses sharing: |')
  # shared/ is below every engine folder: it includes none of src/.
  for f in "$shared"/*.hh "$shared"/*/*; do
    out+=$(engine_includes_of "$f")
  done
  echo "$out"
  [ -z "$out" ]
  # The rule can fail: the strategies do use the folders below them.
  grep -qE '#include "topology/' "$src"/strategies/*
  [ -n "$(engine_includes_of "$src/strategies/profile_guided.cc")" ]
}

@test "slurm-pin place reads its placement through the C API, as the plugin and run do" {
  local out="" f
  for f in "$ROOT"/placements/cli/place_*.cc "$ROOT"/placements/cli/place_*.hh; do
    out+=$(engine_includes_of "$f")
  done
  echo "$out"
  [ -z "$out" ]
  # The rule can fail: the in-algorithm benchmark includes the engine's insides.
  [ -n "$(engine_includes_of "$ROOT/bench/placement/bench_placement.cc")" ]
}

@test "the engine's insides are private: what ships uses its C API and shared/ only" {
  local out="" f
  # Every source of the commands, the plugin, the runtime, the profiler and
  # the policy's helpers.
  while IFS= read -r f; do
    out+=$(engine_includes_of "$ROOT/$f")
  done < <(cd "$ROOT" && git ls-files placements/cli spank_plugin runtime profiler lua common evaluate |
    grep -E '\.(c|cc|h|hh|cpp)$')
  # Only the in-algorithm benchmark and the unit tests link the insides.
  out+=$(cd "$ROOT" && git grep -l 'slurmpin_engine_internals' -- '*CMakeLists.txt' |
    grep -vE '^(placements|bench|tests)/CMakeLists.txt$' | sed 's|^|links the insides: |')
  # src/ is on no include path but the engine's own (PRIVATE) and the insides'.
  # (The sanitized build in tests/fuzz compiles the engine's sources itself.)
  out+=$(cd "$ROOT" && git grep -n 'placements/src\|CMAKE_CURRENT_SOURCE_DIR}/src' -- '*CMakeLists.txt' |
    grep -vE '^tests/fuzz/CMakeLists.txt:|^placements/CMakeLists.txt:[0-9]+:.*(PRIVATE|slurmpin_engine_internals INTERFACE) .*/src' |
    sed 's|^|src on a path: |')
  echo "$out"
  [ -z "$out" ]
  # The rule can fail: the engine's own C API does include them.
  [ -n "$(engine_includes_of "$ROOT/placements/src/c_api.cc")" ]
}

@test "every negated check in a bats test can fail it: a bare '! command' is ignored by bats unless it ends the test" {
  # bats runs a test under set -e, which does not stop at a failing `! cmd`:
  # such a line must end with `|| false` (or `|| { ...; false; }`).
  run awk 'FNR == 1 { pending = "" }
    /^[ \t]*! / && !/\|\|/ { pending = FILENAME ":" FNR ": " $0; next }
    pending != "" && /^[ \t]*$/ { next }
    pending != "" && !/^}/ { print pending }
    { pending = "" }' "$BATS_TEST_DIRNAME"/*.bats "$BATS_TEST_DIRNAME"/*.bash
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "every check of a chained line can fail its test: '[ a ] && [ b ]' checks only b under bats unless it ends the test" {
  # set -e ignores a failing command before && : a line of checks joined
  # by && passes when its first fails. One check per line (or || false).
  run grep -nE '^[[:space:]]*\[\[? .*\]\]? && \[' "$BATS_TEST_DIRNAME"/*.bats "$BATS_TEST_DIRNAME"/*.bash
  found=$(grep -v '||' <<<"$output" || true)
  [ -z "$found" ] || { echo "$found"; false; }
}

