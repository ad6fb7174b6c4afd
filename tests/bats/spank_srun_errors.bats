#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad --pin-* input is one `srun: error:` (or sbatch/salloc) line before
# anything is submitted; user files are read as the user.

load slurm_helpers

setup_file() { slurm_up task/none; }
teardown_file() { slurm_down; }
setup() { set_plugstack; }

# Runs "$@" as the user; asserts one error line from $1 holding $2 and that
# no job was submitted.
submit_fails() {
  local want=$1 before
  shift
  before=$(job_count)
  run --separate-stderr as_user "$@"
  [ "$status" -ne 0 ] || { echo "exit 0: $output"; return 1; }
  expect_one_error_line "$(basename "$1")" "$want"
  [ "$(job_count)" -eq "$before" ] || { echo "a job was submitted"; return 1; }
}

@test "--pin-strategy=help lists the strategies and submits nothing" {
  before=$(job_count)
  run as_user srun --pin-strategy=help true
  [ "$status" -eq 0 ]
  [[ "$output" == *"lpgp "*"file:PATH"* ]]
  # sbatch and salloc without a script or command (sbatch would read one from stdin first).
  run as_user sbatch --pin-strategy=help </dev/null
  [ "$status" -eq 0 ]
  [[ "$output" == *"lpgp "*"file:PATH"* ]]
  run as_user salloc -J x --pin-strategy verbose,help </dev/null
  [ "$status" -eq 0 ]
  [[ "$output" == *"lpgp "*"file:PATH"* ]]
  [ "$(job_count)" -eq "$before" ]
}

@test "unknown strategy in srun, sbatch and salloc" {
  submit_fails "--pin-strategy: unknown strategy 'packed': use one of none|compact" srun --pin-strategy=packed true
  submit_fails "--pin-strategy: unknown strategy 'packed'" sbatch --pin-strategy=packed --wrap true
  submit_fails "--pin-strategy: unknown strategy 'packed'" salloc --pin-strategy=packed true
}

@test "unknown strategy from the environment, as Slurm passes SPANK options" {
  before=$(job_count)
  run --separate-stderr as_user env SLURM_SPANK__SLURM_SPANK_OPTION_slurm_pin_pin_strategy=packed srun true
  [ "$status" -ne 0 ]
  expect_one_error_line srun "unknown strategy 'packed'"
  [ "$(job_count)" -eq "$before" ]
}

@test "profile-guided strategy without a profile" {
  submit_fails "--pin-strategy=lpgp needs a sharing profile: add --pin-profile=NAME or --pin-profile=FILE" \
    srun --pin-strategy=lpgp true
}

@test "bad memory policy and granularity" {
  submit_fails "--pin-mem: unknown memory policy 'near': use none, local or interleave" srun --pin-mem=near true
  submit_fails "--pin-granularity: unknown granularity 'socket'" srun --pin-granularity=socket true
}

@test "malformed placement file names file and line" {
  printf 'slurm-pin-placement 1\ntask 0 0\n' >"$WORK/bad.placement"
  chmod 644 "$WORK/bad.placement"
  submit_fails "$WORK/bad.placement:2: missing ':'" srun --pin-strategy="file:$WORK/bad.placement" true
}

@test "a placement file the user cannot read is refused, though slurmstepd runs as root" {
  printf 'slurm-pin-placement 1\ntask 0: 0\n' >"$WORK/secret.placement"
  chown root: "$WORK/secret.placement"
  chmod 600 "$WORK/secret.placement"
  submit_fails "secret.placement: Permission denied" srun --pin-strategy="file:$WORK/secret.placement" true
}

@test "missing and malformed profiles" {
  submit_fails "--pin-profile: no profile 'nosuchapp' in the store" srun --pin-strategy=lpgp --pin-profile=nosuchapp true
  printf 'slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n' >"$WORK/short.profile"
  chmod 644 "$WORK/short.profile"
  submit_fails "matrix has 1 rows, expected 2" srun --pin-strategy=lpgp --pin-profile="$WORK/short.profile" true
  # A file name without a '/' is a store name: the error says how to name the file.
  submit_fails "no profile 'short.profile' in the store $STORE (list them with \`slurm-pin profiles list\`; a file is named by a path with a '/': ./short.profile)" \
    srun --pin-strategy=lpgp --pin-profile=short.profile true
  submit_fails "profile version 'x'" srun --pin-strategy=lpgp --pin-profile=app@x true
  # Names are cheap to write and each would be placed per region: bounded.
  { printf 'slurm-pin-profile 1\nthreads 2\nmatrix simple\n0 1\n1 0\nregion r\naliases'
    seq -f ' a%g' 4096 | tr -d '\n'
    printf '\nmatrix simple\n0 1\n1 0\n'; } >"$WORK/names.profile"
  chmod 644 "$WORK/names.profile"
  submit_fails "more than 4096 regions and aliases" \
    srun --pin-strategy=lpgp --pin-phases --pin-thread-binding=ompt --pin-profile="$WORK/names.profile" true
}

@test "a store profile writable by others is refused" {
  store_profile "$FIXTURES/profiles/pairs2.profile" loose 2
  chmod 666 "$STORE/loose/t2.v1.profile"
  submit_fails "is writable by group or others: refusing it (chmod go-w)" \
    srun --pin-strategy=lpgp --pin-profile=loose true
}

@test "site rules: allowed strategies and enforce" {
  set_plugstack allowed=none,compact,scatter default=compact
  submit_fails "strategy 'lpgp' is not allowed on this cluster: use one of none,compact,scatter" \
    srun --pin-strategy=lpgp --pin-profile="$FIXTURES/profiles/pairs2.profile" true
  set_plugstack default=scatter enforce
  submit_fails "this cluster enforces strategy 'scatter': remove --pin-strategy=compact" srun --pin-strategy=compact true
}

@test "a bad plugstack.conf argument is one srun error naming it" {
  set_plugstack colour=blue
  run --separate-stderr as_user srun true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"slurm-pin: plugstack.conf: unknown plugstack.conf argument 'colour=blue'"* ]]
}

@test "a bad plugstack.conf value: srun refuses jobs that ask slurm-pin anything, slurmstepd every step it would pin" {
  set_plugstack default=packed
  submit_fails "slurm-pin: plugstack.conf: default=packed: unknown strategy 'packed'" srun --pin-verbose true
  # A job without options loads no engine in srun (engine_link.h); the node
  # refuses to run it unpinned.
  run --separate-stderr as_user srun true
  [ "$status" -ne 0 ]
  # One line, naming the node in slurm-pin's own text (Slurm 25.05 and later
  # no longer prefix slurmstepd's lines with it).
  [[ "$stderr" == *"error: $(sinfo -h -o %N): slurm-pin: plugstack.conf: default=packed: unknown strategy 'packed'"* ]]
  [ "$(grep -c "error: $(sinfo -h -o %N): slurm-pin: " <<<"$stderr")" -eq 1 ]
}

@test "a plugin without its engine: jobs that ask nothing run; others get one error naming the fix" {
  mkdir -p "$CLUSTER/lonely/plugins"
  cp "$PLUGIN" "$CLUSTER/lonely/plugins/"
  chmod -R a+rX "$CLUSTER/lonely"
  echo "required $CLUSTER/lonely/plugins/slurm_pin.so store=/nonexistent" >"$CLUSTER/plugstack.conf"
  run as_user srun -n1 true
  [ "$status" -eq 0 ]
  # srun reads a profile file through the engine: refused there.
  submit_fails "--pin-profile: cannot load the placement engine libslurmpin_frontend.so" \
    srun --pin-strategy=lpgp --pin-profile="$FIXTURES/profiles/pairs2.profile" true
  [[ "$stderr" == *"install the plugin's package (slurm-pin-spank) again"* ]]
  # Option values and store names need no engine in srun
  # (slurm_pin_options.h): a missing store is found there.
  submit_fails "--pin-profile: profile store /nonexistent does not exist" \
    srun --pin-strategy=lpgp --pin-profile=app true
  # A strategy needs it on the node, as the site's default does: the step
  # fails there, with one line naming the node in slurm-pin's own text
  # (Slurm 25.05 and later no longer prefix slurmstepd's lines with it).
  run --separate-stderr as_user srun -n1 --pin-strategy=compact true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"error: $(sinfo -h -o %N): slurm-pin: cannot load the placement engine libslurmpin_frontend.so"* ]]
  [ "$(grep -c "error: $(sinfo -h -o %N): slurm-pin: " <<<"$stderr")" -eq 1 ]
  echo "required $CLUSTER/lonely/plugins/slurm_pin.so default=compact" >"$CLUSTER/plugstack.conf"
  run --separate-stderr as_user srun -n1 true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"error: $(sinfo -h -o %N): slurm-pin: cannot load the placement engine libslurmpin_frontend.so"* ]]
  [ "$(grep -c "error: $(sinfo -h -o %N): slurm-pin: " <<<"$stderr")" -eq 1 ]
}
