#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-pin evaluate through a real Slurm: two nodes on this host (n1, n2),
# few runs of small inputs. The statistics themselves are checked in
# tests/python/test_speedup_test.py.

load slurm_helpers

setup_file() {
  export SLURM_PIN_NODES="n1 n2"
  slurm_up task/none
  cp "$BUILD/bin/jacobi3d" "$WORK/bin/" && chmod a+rx "$WORK/bin/jacobi3d"
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

jacobi() { echo "$WORK/bin/jacobi3d 48 10 static"; }

@test "evaluate: a table, every raw time in JSON, a report with violin plots, a rule policy check accepts" {
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --strategies none,compact,scatter -N 1 \
    --cpus-per-task 2 --noise 1 --metric 'time: ([0-9.]+)' --seed 11 --json "$WORK/e.json" \
    --report "$WORK/report" -- $(jacobi)
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$stderr" == *"9/9 runs"* ]]                      # the progress bar
  [[ "$output" == *"strategy"*"RV"*"speedup of median"* ]]
  grep -q '^none .*baseline' <<<"$output"
  grep -Eq '^compact +3 ' <<<"$output"
  [[ "$output" == *"recommended: "* ]]
  # Every run kept, each strategy once per round, and a decision per strategy.
  [ "$(jq '.runs | length' "$WORK/e.json")" -eq 9 ]
  for r in 1 2 3; do
    [ "$(jq -r "[.runs[] | select(.round == $r) | .strategy] | sort | join(\",\")" "$WORK/e.json")" = compact,none,scatter ]
  done
  [ "$(jq '[.runs[] | select(.metric == null)] | length' "$WORK/e.json")" -eq 0 ]
  for s in compact scatter; do
    jq -e ".results.$s.median.verdict | IN(\"speedup\", \"slowdown\", \"not significant\", \"need more runs\")" "$WORK/e.json"
    jq -e ".results.$s.metric_median.speedup > 0" "$WORK/e.json"
  done
  [ "$(jq -r '.config.noise' "$WORK/e.json")" = 1 ]
  [ "$(head -c 4 "$WORK/report/violin.png" | od -An -c | tr -d ' ')" = '211PNG' ]
  grep -q '!\[wall time per strategy\](violin.png)' "$WORK/report/report.md"
  # The rule for the best strategy is a policy slurm-pin policy accepts.
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --strategies none,compact -c 2 --seed 3 \
    --emit-rule --app jacobi3d -- $(jacobi)
  [ "$status" -eq 0 ]
  echo "$output" >"$WORK/rule.lua"
  grep -q 'name = "evaluated-jacobi3d", match = { app = "jacobi3d" }' "$WORK/rule.lua"
  run "$SLURM_PIN" policy check "$WORK/rule.lua"
  [ "$status" -eq 0 ] || { echo "$output"; cat "$WORK/rule.lua"; false; }
}

@test "evaluate with a profile: the profile-guided strategy gets it, the report draws its heatmap" {
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 2 --strategies none,lpgp -c 2 \
    --profile "$FIXTURES/profiles/pairs2.profile" --report "$WORK/preport" --emit-rule --app pairs -- true
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(head -c 4 "$WORK/preport/heatmap.png" | od -An -c | tr -d ' ')" = '211PNG' ]
  grep -q 'heatmap.png' "$WORK/preport/report.md"
}

@test "evaluate --nodes 2: every run is a two-node step, each node pinned by the plugin" {
  script="$WORK/where.sh"
  printf '#!/bin/sh\necho "$SLURMD_NODENAME $(grep Cpus_allowed_list /proc/self/status | cut -f2)" >>%s/where\n' \
    "$WORK" >"$script"
  chmod a+rx "$script"
  rm -f "$WORK/where"
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 2 --strategies none,compact --nodes 2 --ntasks 4 \
    --json "$WORK/n.json" -- "$script"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(jq -r '.config.nodes' "$WORK/n.json")" = 2 ]
  # 4 runs x 4 tasks, on both nodes; under compact each task has its own CPU.
  [ "$(wc -l <"$WORK/where")" -eq 16 ]
  [ "$(grep -c '^n1 ' "$WORK/where")" -eq 8 ]
  [ "$(grep -c '^n2 ' "$WORK/where")" -eq 8 ]
  [ "$(grep -Ec '^n[12] [01]$' "$WORK/where")" -ge 8 ]
}

@test "evaluate refuses bad input in one line, and a failing run stops it naming the strategy" {
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 1 -- true
  [ "$status" -eq 2 ]
  [[ "$stderr" == "slurm-pin: error: --runs takes 2 to 10000, not '1'" ]]
  run --separate-stderr as_user "$SLURM_PIN" evaluate --strategies none,compact --baseline scatter -- true
  [ "$status" -eq 2 ]
  [[ "$stderr" == *"--baseline scatter is not in --strategies"* ]]
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 2
  [ "$status" -eq 2 ]
  [[ "$stderr" == *"give the program to evaluate after --"* ]]
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 2 --strategies none,packed -- true
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"slurm-pin: error: the run under --pin-strategy=packed failed (exit 1): "*"unknown strategy 'packed'"* ]]
}

@test "evaluate's run order is random but reproducible from its seed" {
  for i in 1 2; do
    run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 4 --strategies none,compact,scatter --seed 42 \
      --json "$WORK/s$i.json" -- true
    [ "$status" -eq 0 ]
  done
  [ "$(jq -c '[.runs[].strategy]' "$WORK/s1.json")" = "$(jq -c '[.runs[].strategy]' "$WORK/s2.json")" ]
  # Not one fixed order: some round differs from the first.
  [ "$(jq 'def order($r): [.runs[] | select(.round == $r) | .strategy]; order(1) as $first | [order(2, 3, 4) != $first] | any' "$WORK/s1.json")" = true ]
}
