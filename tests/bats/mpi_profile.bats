#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-pin profile --mpi: what each rank sends to each other one, recorded
# in the ranks of Debian's Open MPI and MPICH programs, launched directly by
# srun (pmix, pmi2) and by each MPI's own launcher; the counts are the
# program's exactly (bench/workloads/mpi_stencil.c), the same under both
# MPIs, in a profile the engine places ranks from.

load mpi_helpers

WORKLOADS=$BATS_TEST_DIRNAME/../../bench/workloads

setup_file() {
  slurm_up production
  local mpi
  for mpi in openmpi mpich; do
    "mpicc.$mpi" -O1 -fopenmp "$WORKLOADS/mpi_stencil.c" -o "$WORK/bin/stencil_$mpi"
  done
  chmod -R a+rX "$WORK/bin"
  # Debian testing's Slurm (26.05) has no pmix plugin: Open MPI's direct launch is skipped there.
  if srun --mpi=list 2>&1 | grep -qw pmix; then export HAVE_PMIX=1; fi
}
teardown_file() { slurm_down; }
setup() { set_plugstack; }

# `slurm-pin profile --mpi` as the test user, into $WORK/$1.profile.
profile_ranks() {
  local name=$1
  shift
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi --app "$name" --output "$WORK/$name.profile" "$@"
  [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
}

# Section $2 (rank_matrix bytes, rank_matrix messages) of profile $1, one row per line.
section() { sed -n "/^$2\$/,/^[a-z]/p" "$WORK/$1.profile" | grep -v '^[a-z]'; }

@test "a ring: every rank's bytes and messages exactly, the final reduction by the model; Open MPI through mpirun and srun" {
  # 4 ranks in rank order (seed 0), 10 iterations of 8 x 8 doubles (512
  # bytes) to the next rank, then an MPI_Reduce of one double to rank 0.
  # Under mpirun: a step of 4 tasks would not fit this node's 2 CPUs (Slurm
  # 24.11 keeps such a step pending even with --overcommit).
  profile_ranks ring --no-srun -- mpirun.openmpi --oversubscribe -np 4 "$WORK/bin/stencil_openmpi" ring 8 10
  [ "$(section ring 'rank_matrix bytes')" = "$(printf '0 5120 0 0\n8 0 5120 0\n8 0 0 5120\n5128 0 0 0')" ]
  [ "$(section ring 'rank_matrix messages')" = "$(printf '0 10 0 0\n1 0 10 0\n1 0 0 10\n11 0 0 0')" ]
  grep -qx 'ranks 4' "$WORK/ring.profile" && grep -qx 'threads 1' "$WORK/ring.profile"
  # 24 of the 20504 bytes by the collective.
  awk '$1 == "rank_collective_share" { exit !($2 > 0.00117 && $2 < 0.00118) }' "$WORK/ring.profile"
  [[ "$stderr" == *"profile of ring with 4 ranks of 1 thread"* ]]
  # Pairs 0-1 and 0-3 both exchange 5128 bytes: the first is named.
  [[ "$stderr" == *"heaviest pair 0-1 (0.00513 MB)"* ]] || { echo "$stderr"; false; }
  # Direct launch through srun (pmix), two ranks: each sends the other its
  # 10 blocks; rank 1 also its double to rank 0.
  [ -n "${HAVE_PMIX:-}" ] || skip "this Slurm has no pmix plugin for Open MPI's direct launch"
  profile_ranks ring2 --ranks 2 -- "$WORK/bin/stencil_openmpi" ring 8 10
  [ "$(section ring2 'rank_matrix bytes')" = "$(printf '0 5120\n5128 0')" ]
  [ "$(section ring2 'rank_matrix messages')" = "$(printf '0 10\n11 0')" ]
}

@test "a shuffled 3-D halo: MPICH through mpiexec, Open MPI through mpirun, neighbourhood collectives and one-sided puts: one matrix" {
  # 8 ranks on a periodic 2 x 2 x 2 grid in a shuffled order, 5 iterations:
  # each rank sends two 512-byte faces per iteration to each of its three
  # neighbours, whose world ranks the shuffle picks.
  local program=(halo3d 8 5 5)
  profile_ranks halo_hydra --no-srun -- mpiexec.mpich -n 8 "$WORK/bin/stencil_mpich" "${program[@]}"
  profile_ranks halo_orterun --no-srun -- mpirun.openmpi --oversubscribe -np 8 "$WORK/bin/stencil_openmpi" "${program[@]}"
  local want
  want=$(section halo_hydra 'rank_matrix bytes')
  [ "$(section halo_orterun 'rank_matrix bytes')" = "$want" ]
  # The same exchange as one neighbourhood all-to-all: the same bytes, now
  # counted as a collective.
  profile_ranks halo_neighbor --no-srun -- mpiexec.mpich -n 8 "$WORK/bin/stencil_mpich" nhalo3d 8 5 5
  [ "$(section halo_neighbor 'rank_matrix bytes')" = "$want" ]
  awk '$1 == "rank_collective_share" { exit !($2 > 0.99) }' "$WORK/halo_neighbor.profile"
  # A ring of MPI_Put into the next rank's window moves what the ring of sends does.
  profile_ranks ring_sends --no-srun -- mpiexec.mpich -n 4 "$WORK/bin/stencil_mpich" ring 8 5 3
  profile_ranks ring_puts --no-srun -- mpirun.openmpi --oversubscribe -np 4 "$WORK/bin/stencil_openmpi" putring 8 5 3
  [ "$(section ring_puts 'rank_matrix bytes')" = "$(section ring_sends 'rank_matrix bytes')" ]
  # Each row: three neighbours at 5120 bytes (one of them the grid's root
  # too, at 5128, but for the root itself), the rest 0 or the reduction's 8.
  while read -r row; do
    [ "$(tr ' ' '\n' <<<"$row" | grep -cE '^512[08]$')" -eq 3 ] || { echo "row: $row"; false; }
  done <<<"$want"
  # Not block-shaped: rank 0's neighbours are not ranks 1, 2 and 4.
  [ "$(head -1 <<<"$want" | awk '{ print ($2 >= 5120) + ($3 >= 5120) + ($5 >= 5120) }')" -lt 3 ]
  # The rows the engine places by: these ranks on two sockets keep 2 of each
  # rank's 3 neighbours beside it, as a 2 x 2 face of the grid does.
  run "$SLURM_PIN" place --topology "pack:2 core:4 pu:1" --tasks 8 --strategy compact --profile "$WORK/halo_hydra.profile"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$(grep '^Package ' <<<"$output")" == *"66.7%" ]] || { echo "$output"; false; }
}

@test "--mpi with a thread backend: both sections, the threads summed over the ranks, the MPI library's own threads left out" {
  # Valgrind under MPICH, ranks started by srun (UCX starts a thread in every rank).
  profile_ranks both_vg --ranks 2 --threads 2 --backend valgrind -- "$WORK/bin/stencil_mpich" halo3d 16 3 7
  grep -qx 'ranks 2' "$WORK/both_vg.profile" && grep -qx 'threads 2' "$WORK/both_vg.profile"
  grep -qx 'matrix simple' "$WORK/both_vg.profile" && grep -qx 'rank_matrix bytes' "$WORK/both_vg.profile"
  grep -qE '^thread_starts main libgomp' "$WORK/both_vg.profile"
  # The master and its OpenMP worker share the grid: the pair's entry is not 0.
  [ "$(sed -n '/^matrix simple$/{n;p;q}' "$WORK/both_vg.profile" | awk '{ print ($2 > 0) }')" = 1 ]
  # The compiler backend under Open MPI's mpirun: an instrumented program.
  mpicc.openmpi -O1 -fopenmp -fsanitize=thread -c "$WORKLOADS/mpi_stencil.c" -o "$WORK/bin/stencil_tsan.o"
  mpicc.openmpi "$WORK/bin/stencil_tsan.o" -o "$WORK/bin/stencil_tsan" -fopenmp -L"$BUILD/lib" -lslurm_pin_tsan \
    -Wl,-rpath,"$BUILD/lib"
  chmod a+rx "$WORK/bin/stencil_tsan"
  profile_ranks both_tsan --threads 2 --backend compiler --no-srun -- mpirun.openmpi --oversubscribe -np 2 \
    "$WORK/bin/stencil_tsan" halo3d 16 3 7
  grep -qx 'ranks 2' "$WORK/both_tsan.profile" && grep -qx 'threads 2' "$WORK/both_tsan.profile"
  grep -qx 'matrix simple' "$WORK/both_tsan.profile"
  [ "$(section both_tsan 'rank_matrix bytes')" = "$(section both_vg 'rank_matrix bytes')" ]
}

@test "hybrid ranks: each rank's threads are recorded in the profile's thread count" {
  # One CPU each (--cpus): two ranks of two threads on this node's 2 CPUs.
  profile_ranks hybrid --ranks 2 --threads 2 --cpus 1 -- "$WORK/bin/stencil_mpich" halo3d 6 3
  grep -qx 'ranks 2' "$WORK/hybrid.profile" && grep -qx 'threads 2' "$WORK/hybrid.profile"
  [[ "$stderr" == *"profile of hybrid with 2 ranks of 2 threads"* ]]
}

@test "profile --mpi errors are one line naming the problem and the fix" {
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi --app x --ranks 2 --output "$WORK/x.profile" -- /bin/true
  [ "$status" -ne 0 ]
  expect_one_error_line "slurm-pin" "cannot tell which MPI the program uses"
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi --app x --output "$WORK/x.profile" -- "$WORK/bin/stencil_mpich" ring 4 1
  [ "$status" -eq 2 ]
  expect_one_error_line "slurm-pin" "--mpi needs --ranks N"
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi --backend pin --app x --ranks 2 --output "$WORK/x.profile" -- "$WORK/bin/stencil_mpich" ring 4 1
  [ "$status" -eq 2 ]
  expect_one_error_line "slurm-pin" "--mpi takes the valgrind or compiler backend"
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi --backend compiler --app x --ranks 2 --output "$WORK/x.profile" -- "$WORK/bin/stencil_mpich" ring 4 1
  [ "$status" -ne 0 ]
  expect_one_error_line "slurm-pin" "was not built for the compiler backend"
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi=lam --app x --ranks 2 --output "$WORK/x.profile" -- "$WORK/bin/stencil_mpich" ring 4 1
  [ "$status" -eq 2 ]
  expect_one_error_line "slurm-pin" "--mpi takes openmpi or mpich"
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi=openmpi --app x --ranks 2 --output "$WORK/x.profile" -- "$WORK/bin/stencil_mpich" ring 4 1
  [ "$status" -ne 0 ]
  expect_one_error_line "slurm-pin" "is linked with MPICH, not openmpi"
  # A launcher that starts no MPI program at all: nothing recorded, no work directory left.
  run --separate-stderr as_user "$SLURM_PIN" profile --mpi=mpich --app x --no-srun --output "$WORK/x.profile" -- mpiexec.mpich -n 2 /bin/true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"no rank wrote its traffic"* ]] || { echo "$stderr"; false; }
  [ ! -e "$WORK/x.profile" ]
  [ -z "$(ls -A "$WORK" | grep '^.slurm-pin-profile' || true)" ]
}

@test "the store keeps a rank profile: profiles show prints its rows; srun places by it, a job of another size in block order with one note" {
  profile_ranks ring4 --no-srun -- mpirun.openmpi --oversubscribe -np 4 "$WORK/bin/stencil_openmpi" ring 8 10
  "$SLURM_PIN" profiles import --store "$STORE" --app ring "$WORK/ring4.profile" >/dev/null
  run "$SLURM_PIN" profiles show --store "$STORE" ring --png "$WORK/ring.png"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -cE '^[0-9]+( +[0-9]+){4}$' <<<"$output")" -eq 4 ]  # each rank's number, then its row
  grep -q '^cells: bytes each rank (row) sent each other one (column)$' <<<"$output"
  [ "$(head -c 4 "$WORK/ring.png" | od -An -c | tr -d ' ')" = "211PNG" ]
  # Two tasks of a profile of four ranks: one note, the tasks in block
  # order, their one thread each where verbose says.
  run --separate-stderr as_user env OMP_NUM_THREADS=1 srun -n2 -c1 --pin-strategy=lpgp --pin-profile=ring \
    --pin-verbose "$WORK/bin/omp_gomp"
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(grep -c "rank traffic is of 4 ranks but the job has 2 tasks" <<<"$stderr")" -eq 1 ] || { echo "$stderr"; false; }
  claims_are_real
  [ "$(thread_cpus 0)" = 0 ]
  [ "$(thread_cpus 1)" = 1 ]
}

@test "slurm-pin evaluate compares an MPI program's ranks placed by their measured traffic, and says when a placement is the same" {
  profile_ranks halo2 --ranks 2 --srun-arg=--mpi=pmi2 -- "$WORK/bin/stencil_mpich" halo3d 8 3 7
  # Two ranks on this node's two cores: by traffic is block order, so
  # nothing is run (the dry runs say why).
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --strategies compact,lpgp --profile "$WORK/halo2.profile" \
    -n 2 --srun-arg=--mpi=pmi2 --journal "$WORK/halo2-same.journal" -- "$WORK/bin/stencil_mpich" halo3d 8 3 7
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [[ "$stderr" == *"lpgp places this step as compact does (dry run)"*"nothing to compare"* ]] || { echo "$stderr"; false; }
  run --separate-stderr as_user "$SLURM_PIN" evaluate --runs 3 --strategies none,lpgp --profile "$WORK/halo2.profile" \
    -n 2 --srun-arg=--mpi=pmi2 --metric 'time: ([0-9.]+)' --seed 5 --json "$WORK/halo2.json" -- \
    "$WORK/bin/stencil_mpich" halo3d 8 3 7
  [ "$status" -eq 0 ] || { echo "$stderr"; false; }
  [ "$(jq '[.runs[] | select(.exit == 0 and .metric != null)] | length' "$WORK/halo2.json")" -eq 6 ]
  for r in 1 2 3; do
    [ "$(jq -r "[.runs[] | select(.round == $r) | .strategy] | sort | join(\",\")" "$WORK/halo2.json")" = lpgp,none ]
  done
  grep -Eq '^lpgp +3 ' <<<"$output"
}
