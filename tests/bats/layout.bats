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

@test "the engine (placements/src, its API) names no Slurm variable" {
  run slurm_names_in "$ROOT/placements/src" "$ROOT/placements/include"
  echo "$output"
  [ -z "$output" ]
  # The rule can fail: the front ends' adapter does name them.
  [ -n "$(slurm_names_in "$ROOT/common/slurm_binding_env.c")" ]
}

@test "the API names no Slurm function and the engine calls no Slurm" {
  run grep -rnE 'slurm_cpu_bind|policy_decision|#include <slurm/' "$ROOT/placements/include" "$ROOT/placements/src"
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

# The engine's folders each use only those below them (placements/README.md).
@test "the engine's folders use only the folders below them" {
  local src=$ROOT/placements/src out="" pair
  for pair in "input topology" "input sharing" "input strategies" "input binding" "topology sharing" \
    "topology strategies" "topology binding" "sharing topology" "sharing strategies" "sharing binding" \
    "strategies binding"; do
    set -- $pair
    out+=$(grep -lE "#include \"$2/" "$src/$1"/* 2>/dev/null | sed "s|^|$1 uses $2: |")
  done
  out+=$(grep -lE '#include "engine.hh"' "$src"/{input,topology,sharing,strategies}/* 2>/dev/null | sed 's|^|uses the engine: |')
  echo "$out"
  [ -z "$out" ]
  # The rule can fail: the strategies do use the folders below them.
  grep -qE '#include "sharing/' "$src"/strategies/*
}

# Engine headers (placements/src) a file includes, by their include path.
engine_includes_of() {
  local f=$1 inc
  grep -oE '#include "[^"]+"' "$f" | sed 's/#include "//; s/"$//' | while read -r inc; do
    [ -e "$ROOT/placements/src/$inc" ] && echo "$(basename "$f"): $inc"
  done
  true
}

@test "slurm-pin place reads its placement through the C API, as the plugin and run do" {
  local out="" f
  for f in "$ROOT"/placements/cli/place_*.cc "$ROOT"/placements/cli/place_*.hh; do
    # The commands' argument and error helpers are the only shared code.
    out+=$(engine_includes_of "$f" | grep -vE ': (input/args\.hh|error\.hh)$' || true)
  done
  echo "$out"
  [ -z "$out" ]
  # The rule can fail: the profiler still includes the engine's insides.
  [ -n "$(engine_includes_of "$ROOT/profiler/cli/profile_diff.cc")" ]
}
