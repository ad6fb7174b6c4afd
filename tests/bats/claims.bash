# SPDX-License-Identifier: GPL-2.0-or-later
# What slurm-pin says against what runs, for the Slurm suites and the NUMA
# guest's checks (tests/numa/checks): plain bash, no bats.

# Every verbose line of $stderr that says where a task or rank runs
# ("... rank R ...: strategy S, ..., places {A},{B}, ...") is true of the
# running process: thread i of rank R (as the test program reports it in
# $output, from its own sched_getaffinity) has exactly the CPUs of place i.
# Fails when a claim differs, or when no claim was made.
claims_are_real() {
  local line rank want got n=0
  while IFS= read -r line; do
    [[ $line =~ rank\ ([0-9]+)[^:]*:\ strategy\ .*places\ (\{[^\ ]*\}) ]] || continue
    rank=${BASH_REMATCH[1]}
    want=$(sed 's/^{//; s/}$//; s/},{/ /g' <<<"${BASH_REMATCH[2]}")
    got=$(grep -E "^rank $rank (node [^ ]+ )?thread " <<<"$output" |
      awk '{ for (i = 1; i < NF; ++i) { if ($i == "thread") t = $(i + 1); if ($i == "mask") m = $(i + 1) } print t, m }' |
      sort -n | awk '{ printf "%s%s", sep, $2; sep = " " }')
    [ "$want" = "$got" ] || { echo "rank $rank: verbose says places $want, its threads run on $got"; return 1; }
    n=$((n + 1))
  done <<<"$stderr"
  [ "$n" -gt 0 ] || { echo "no verbose line placed a rank: $stderr"; return 1; }
}
