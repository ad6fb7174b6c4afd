#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-pin evaluate through a real Slurm: two nodes on this host (n1, n2),
# few runs of small inputs. The statistics themselves are checked in
# tests/python/test_speedup_test.py.

load slurm_helpers
load evaluate_helpers

setup_file() {
  export SLURM_PIN_NODES="n1 n2"
  slurm_up task/none
  cp "$BUILD/bin/jacobi3d" "$WORK/bin/" && chmod a+rx "$WORK/bin/jacobi3d"
  # A third placement of a 2-CPU step besides none and compact: compact's
  # threads swapped (on this machine's one package scatter places a step as
  # compact does, and evaluate runs identical placements once).
  printf 'slurm-pin-placement 1\ntask 0: 1 0\n' >"$WORK/rev.placement"
  chmod a+r "$WORK/rev.placement"
}
REV() { echo "file:$WORK/rev.placement"; }
teardown_file() { slurm_down; }
setup() { set_plugstack; }

jacobi() { echo "$WORK/bin/jacobi3d 48 10 static"; }

# The decisions the fixed lists must give, from evaluate's JSON.
expect_fixed_decisions() {
  local json=$1
  [ "$(jq '[.runs[] | select(.exit == 0)] | length' "$json")" -eq 30 ]
  [ "$(jq -r '.results.metric.compact.mean | "\(.verdict) \(.test)"' "$json")" = \
    "speedup Student t (Gaussian, equal variances)" ]
  jq -e '.results.metric.compact.mean.p_value < 1e-10' "$json"
  [ "$(jq -r '.results.metric.compact.median.verdict' "$json")" = "need more runs" ]
  [ "$(jq -r --arg s "$(REV)" '.results.metric[$s].mean.verdict' "$json")" = "not significant" ]
  # Numbers compared as numbers (jq 1.8 prints 1 as 1.0).
  jq -e --arg s "$(REV)" '.results.metric[$s].median | .verdict == "not significant" and .p_value == 1' "$json"
  [ "$(jq -r '.recommendation | "\(.figure) \(.strategy)"' "$json")" = "metric compact" ]
  # Each round ran every strategy once, whatever stopped the evaluation.
  for r in $(seq 1 10); do
    [ "$(jq -r "[.runs[] | select(.round == $r and .exit == 0) | .strategy] | sort | join(\",\")" "$json")" = \
      "compact,$(REV),none" ]
  done
}

@test "evaluate: a table, every raw time in JSON, a report with violin plots" {
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --strategies "none,compact,$(REV)" -N 1 \
    --cpus-per-task 2 --noise 1 --metric 'time: ([0-9.]+)' --seed 11 --json "$WORK/e.json" \
    --report "$WORK/report" -- $(jacobi)
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  # Not a terminal: one line per run, with the time left.
  [ "$(grep -c '^slurm-pin evaluate: run [1-9]/9: ' <<<"$stderr")" -eq 9 ]
  [[ "$stderr" == *"run 9/9: "*" 0s left"* ]]
  [[ "$stderr" != *$'\r'* ]]
  [[ "$output" == *"Speedup-Test against none at risk 0.05"* ]]
  [[ "$output" == *"strategy"*"runs"*"RV"*"speedup of the mean"*"decided by"*"speedup of the median"* ]]
  grep -Eq '^compact +3 ' <<<"$output"
  grep -Eq '^(recommended: |no recommendation: |no strategy beats the baseline none: keep none)' <<<"$output"
  # Every run kept, each strategy once per round, and a decision per strategy.
  [ "$(jq '.runs | length' "$WORK/e.json")" -eq 9 ]
  for r in 1 2 3; do
    [ "$(jq -r "[.runs[] | select(.round == $r) | .strategy] | sort | join(\",\")" "$WORK/e.json")" = "compact,$(REV),none" ]
  done
  [ "$(jq '[.runs[] | select(.metric == null)] | length' "$WORK/e.json")" -eq 0 ]
  for s in compact "$(REV)"; do
    jq -e --arg s "$s" '.results.time[$s].median.verdict | IN("speedup", "slowdown", "not significant", "need more runs")' "$WORK/e.json"
    jq -e --arg s "$s" '.results.metric[$s].median.speedup > 0' "$WORK/e.json"
  done
  [ "$(jq -r '.config.noise' "$WORK/e.json")" = 1 ]
  [ "$(head -c 4 "$WORK/report/violin.png" | od -An -c | tr -d ' ')" = '211PNG' ]
  grep -q '!\[wall time per strategy\](violin.png)' "$WORK/report/report.md"
  grep -q '1 CPU-bound noise process beside each task' "$WORK/report/report.md"
}

@test "evaluate decides on the program's figure by the protocol: fixed figures give the known decisions" {
  prog=$(figures_program)
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 10 --strategies "none,compact,$(REV)" -c 2 \
    --metric 'time: ([0-9.]+)' --journal "$WORK/fixed.journal" --json "$WORK/fixed.json" --report "$WORK/fixed" -- "$prog"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  expect_fixed_decisions "$WORK/fixed.json"
  grep -Eq '^compact +1\.333 speedup +Student t \(Gaussian, equal variances\), p = [0-9.e-]+ +1\.333 need more runs +Kolmogorov-Smirnov' <<<"$output"
  grep -q '^recommended: compact (speedup of the mean 1.333 over none (Student t (Gaussian, equal variances), p = .*; Holm over 4 comparisons at 0.05))$' <<<"$output"
  # The journal holds the configuration and one line per run, as they finished.
  [ "$(head -c 8 "$WORK/fixed.journal")" = "#config	" ]
  [ "$(grep -c '^run	' "$WORK/fixed.journal")" -eq 30 ]
  # The figure is plotted beside wall time.
  grep -q "the program's figure" "$WORK/fixed/report.md"
  [ "$(head -c 4 "$WORK/fixed/violin.png" | od -An -c | tr -d ' ')" = '211PNG' ]
}

@test "evaluate on a terminal: a progress bar redrawn in place, then the same result as in a log" {
  prog=$(figures_program)
  # util-linux script(1) gives the command a pseudo-terminal as its stderr.
  run as_user script -qec "$SLURM_PIN evaluate --runs 10 --strategies none,compact,$(REV) -c 2 --metric 'time: ([0-9.]+)' \
    --journal $WORK/tty.journal --json $WORK/tty.json -- $prog" /dev/null
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" != *"unbound variable"* ]] || { echo "$output"; false; }
  # The bar: carriage returns, no new line per run, ending at 30/30.
  [[ "$output" == *$'\r'"slurm-pin evaluate: ["*"] 30/30 runs"* ]] || { echo "$output"; false; }
  [ "$(grep -c 'slurm-pin evaluate: run ' <<<"$output")" -eq 0 ]
  expect_fixed_decisions "$WORK/tty.json"
}

@test "evaluate: a zero figure is one line after every run, and every run stays in the journal and the JSON" {
  printf '#!/bin/sh\necho " Time in seconds =                     0.00"\n' >"$WORK/mg.sh"
  chmod a+rx "$WORK/mg.sh"
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --strategies none,compact \
    --metric 'Time in seconds = +([0-9.]+)' --journal "$WORK/zero.journal" --json "$WORK/zero.json" -- "$WORK/mg.sh"
  [ "$status" -eq 1 ]
  [ "$(grep -c . <<<"$stderr" | tr -d ' ')" -ge 1 ]
  last=$(tail -n 1 <<<"$stderr")
  [[ "$last" == "slurm-pin: error: the program's figure: none is 0 in 3 of 3 runs: a speedup needs positive figures"*"kept in $WORK/zero.journal)" ]]
  [[ "$stderr" != *Traceback* ]]
  [ "$(grep -c '^run	' "$WORK/zero.journal")" -eq 6 ]
  [ "$(jq '.runs | length' "$WORK/zero.json")" -eq 6 ]
  [[ "$output" == *"wall time of the step"* ]]   # wall time is still analysed
  [[ "$output" == *"no recommendation: nothing can be decided"* ]]
}

@test "evaluate stopped by a failing run or by Ctrl-C loses no run, and --resume finishes it" {
  prog=$(figures_program)
  touch "$WORK/figures/fail.compact.3"
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 10 --strategies "none,compact,$(REV)" -c 2 --seed 7 \
    --metric 'time: ([0-9.]+)' --journal "$WORK/stop.journal" -- "$prog"
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"the run under --pin-strategy=compact failed (exit 3): "*"injected failure"*"slurm-pin evaluate --resume $WORK/stop.journal"* ]]
  before=$(grep -c '	0	' "$WORK/stop.journal")
  [ "$(grep -c '^run	compact	3	.*	3	$' "$WORK/stop.journal")" -eq 1 ]
  # Ctrl-C a few runs later: the runs so far are kept.
  # As a terminal's Ctrl-C reaches it: a shell without job control starts a
  # background command with SIGINT ignored (bash 5.3 does), which the test
  # undoes.
  as_user env --default-signal=INT "$SLURM_PIN" evaluate --resume "$WORK/stop.journal" 2>"$WORK/resume1.err" &
  for _ in $(seq 200); do
    [ "$(grep -c '^run	' "$WORK/stop.journal")" -ge $((before + 4)) ] && break
    sleep 0.1
  done
  pkill -INT -f 'slurm-pin-evaluate --resume'
  rc=0
  wait $! || rc=$?
  [ "$rc" -eq 130 ] || { echo "exit $rc"; cat "$WORK/resume1.err"; false; }
  grep -q "slurm-pin evaluate: interrupted: [0-9]* of 30 runs are kept in $WORK/stop.journal; continue with slurm-pin evaluate --resume $WORK/stop.journal" "$WORK/resume1.err"
  kept=$(grep -c '	0	' "$WORK/stop.journal")
  [ "$kept" -gt "$before" ]
  [ "$kept" -lt 30 ]
  # Resumed to the end: the same order, every figure once, the known decisions.
  run --separate-stderr as_user "$SLURM_PIN" evaluate --resume "$WORK/stop.journal" --json "$WORK/stop.json"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$stderr" == *"$kept done already"* ]]
  expect_fixed_decisions "$WORK/stop.json"
  [ "$(jq '[.runs[] | select(.exit == 3)] | length' "$WORK/stop.json")" -eq 1 ]
  for s in none compact scatter; do [ "$(cat "$WORK/figures/count.$s")" -eq 10 ]; done
  # A resumed journal takes no program and no second configuration.
  run --separate-stderr as_user "$SLURM_PIN" evaluate --resume "$WORK/stop.journal" -- true
  [ "$status" -eq 2 ]
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --journal "$WORK/stop.journal" -- true
  [ "$status" -eq 2 ]
  [[ "$stderr" == *"exists: continue it with --resume"* ]]
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
  [[ "$stderr" == *"slurm-pin: error: the dry run of --pin-strategy=packed failed: "*"unknown strategy 'packed'"* ]]
}

@test "evaluate runs strategies that place the step identically once, and names them as the same placement" {
  # A 2-CPU step on one package: scatter places it as compact does.
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 2 --strategies none,compact,scatter -c 2 \
    --json "$WORK/same.json" -- true
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(grep -c "scatter places this step as compact does (dry run): not run separately" <<<"$stderr")" -eq 1 ] || { echo "$stderr"; false; }
  [ "$(jq -r '[.runs[].strategy] | unique | join(",")' "$WORK/same.json")" = compact,none ]
  [ "$(jq -r '.config.same_placement.scatter' "$WORK/same.json")" = compact ]
  [[ "$output" == *"scatter: the same placement as compact (dry run), so not run separately"* ]]
  # Nothing left to compare: said, and nothing is run.
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 2 --strategies compact,scatter -c 2 \
    --journal "$WORK/none-left.journal" -- true
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"every strategy places this step as compact does: nothing to compare"* ]]
  [ ! -e "$WORK/none-left.journal" ]
}

@test "evaluate's run order is random but reproducible from its seed" {
  for i in 1 2; do
    run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 4 --strategies "none,compact,$(REV)" -c 2 --seed 42 \
      --journal "$WORK/s$i.journal" --json "$WORK/s$i.json" -- true
    [ "$status" -eq 0 ]
  done
  [ "$(jq -c '[.runs[].strategy]' "$WORK/s1.json")" = "$(jq -c '[.runs[].strategy]' "$WORK/s2.json")" ]
  # Not one fixed order: some round differs from the first.
  [ "$(jq 'def order($r): [.runs[] | select(.round == $r) | .strategy]; order(1) as $first | [order(2, 3, 4) != $first] | any' "$WORK/s1.json")" = true ]
}
