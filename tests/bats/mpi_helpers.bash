# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the MPI suites: batch jobs of the test user and what their ranks
# reported (tests/programs/mpi_report.c: "rank R node N thread T cpu C mask
# M" and "rank R node N env NAME=VALUE").
load slurm_helpers

# Two emulated nodes on one host need Open MPI's TCP transport (its shared
# memory one crashes across them), over loopback: every rank is on this
# host, and Open MPI 5 (Debian 13) finds no reachable pair of interfaces
# here otherwise.
OMPI_TRANSPORT="OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo"

# `run --separate-stderr as_user "$@"` for a direct launch of MPI ranks.
# Open MPI 4.1 over loopback TCP crashed a rank inside its own start-up
# once, in a clean-clone CI run (a segfault Open MPI's handler reported as
# "*** Process received signal ***", its peers then failing to connect), and
# never in a dozen runs here, loaded or not: that crash alone is tried once
# more, with the first try shown. Any other failure, and every assertion
# after it, stand as they were.
run_ranks() {
  run --separate-stderr as_user "$@"
  if [ "$status" -ne 0 ] && [[ "$stderr" == *"*** Process received signal ***"* ]]; then
    { echo "MPI crashed a rank in its start-up; once more. First try:"; echo "$stderr"; } | sed 's/^/# /' >&3
    run --separate-stderr as_user "$@"
  fi
}

# A batch job of the test user running the lines $1, waited for; its output
# in $output.
batch() {
  local script=$WORK/job.$BATS_TEST_NUMBER.sh out=$WORK/job.$BATS_TEST_NUMBER.out
  printf '#!/bin/bash\nexport %s\n%s\n' "$OMPI_TRANSPORT" "$1" >"$script"
  chmod 755 "$script"
  shift
  run --separate-stderr as_user timeout 120 sbatch --wait -o "$out" "$@" "$script"
  [ "$status" -eq 0 ] || { cat "$out"; return 1; }
  output=$(cat "$out")
}

# "node:cpu node:cpu ..." of rank $1's threads, in thread order.
rank_threads() {
  grep "^rank $1 node " <<<"$output" | grep ' thread ' | sort -k6,6n |
    awk '{ printf "%s%s:%s", sep, $4, $8; sep = " " }'
}

# Fails unless rank 0's threads are "$1" (rank_threads), rank 1's "$2", and
# so on, naming the first rank that is not.
ranks_run_on() {
  local rank=0 want
  for want; do
    [ "$(rank_threads "$rank")" = "$want" ] ||
      { echo "rank $rank runs on '$(rank_threads "$rank")', not '$want'"; return 1; }
    rank=$((rank + 1))
  done
}

# "cpu cpu ..." of rank $1's threads, in thread order.
rank_cpus() { rank_threads "$1" | sed 's/[^ ]*://g'; }

# The value of variable $2 as rank $1 saw it.
rank_env() { grep "^rank $1 node [^ ]* env $2=" <<<"$output" | head -1 | cut -d= -f2-; }

# Builds the reporter with each MPI (and a pure MPI one with MPICH), and a
# placement file that reverses two local ranks.
build_mpi_programs() {
  local mpi
  for mpi in openmpi mpich; do
    "mpicc.$mpi" -O1 -fopenmp -I"$PROGRAMS" "$PROGRAMS/mpi_report.c" -o "$WORK/bin/report_$mpi" -lnuma
  done
  mpicc.mpich -O1 -I"$PROGRAMS" "$PROGRAMS/mpi_report.c" -o "$WORK/bin/pure_mpich" -lnuma
  printf 'slurm-pin-placement 1\ntask 0: 1\ntask 1: 0\n' >"$WORK/reverse.placement"
  chmod -R a+rX "$WORK/bin" "$WORK/reverse.placement"
}
