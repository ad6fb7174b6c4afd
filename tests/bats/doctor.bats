#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-pin doctor on a node set up as the docs say (a real Slurm in the
# production configuration, the plugstack line, the policy installed by
# docs/policy.md's lines): all is well, and every way the admin of issue 46
# broke a site is one line naming the problem and its fix, exit status 1;
# what doctor says of a line is what srun then does with it.

load slurm_helpers

setup_file() {
  export SLURM_PIN_JOB_SUBMIT=1 SLURM_PIN_POLICY_RECHECK=0
  slurm_up production policy
  cp "$BATS_TEST_DIRNAME/../../etc/slurm-pin-policy.lua" "$CLUSTER/"
}
teardown_file() { slurm_down; }
setup() {
  set_plugstack policy
  chmod 755 "$STORE"
}

@test "a node set up as the docs say: all is well, and a pinned job runs" {
  run "$SLURM_PIN" doctor
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "slurm-pin doctor: all is well ("*"plugin $PLUGIN"*"store $STORE"*"policy: the policy $CLUSTER/slurm-pin-policy.lua loaded: "*" rules, in force)" ]]
  run as_user srun -c2 --pin-strategy=compact --pin-verbose true
  [ "$status" -eq 0 ]
}

@test "a plugstack line checked before it is deployed: every mistake one line with its fix; srun agrees" {
  line="required $PLUGIN store=$STORE defualt=compact default=packed mem=fast enforce=threads,bogus policy"
  echo "$line" >"$WORK/new-plugstack.conf"
  run "$SLURM_PIN" doctor --plugstack "$WORK/new-plugstack.conf"
  [ "$status" -eq 1 ]
  [[ "$output" == *"new-plugstack.conf:1: unknown plugstack.conf argument 'defualt=compact': did you mean default=?"* ]]
  [[ "$output" == *"new-plugstack.conf:1: default=packed: unknown strategy 'packed'"* ]]
  [[ "$output" == *"new-plugstack.conf:1: mem=fast: unknown memory policy 'fast'"* ]]
  [[ "$output" == *"new-plugstack.conf:1: enforce=threads,bogus: 'bogus' is no setting"* ]]
  [ "$(grep -c '^slurm-pin doctor: ' <<<"$output")" -eq 5 ]  # four problems and the count
  [[ "${lines[-1]}" == "slurm-pin doctor: 4 problems found" ]]
  # The same line in a file an include names (as Debian's plugstack.conf.d).
  mkdir -p "$WORK/plugstack.d"
  mv "$WORK/new-plugstack.conf" "$WORK/plugstack.d/pin.conf"
  printf '# site\ninclude %s/plugstack.d/*.conf\n' "$WORK" >"$WORK/main.conf"
  run "$SLURM_PIN" doctor --plugstack "$WORK/main.conf"
  [ "$status" -eq 1 ]
  [[ "$output" == *"plugstack.d/pin.conf:1: default=packed: unknown strategy 'packed'"* ]]
  mv "$WORK/plugstack.d/pin.conf" "$WORK/new-plugstack.conf"
  # Deployed, the first mistake is what srun refuses jobs with.
  cp "$WORK/new-plugstack.conf" "$CLUSTER/plugstack.conf"
  run --separate-stderr as_user srun --pin-strategy=compact true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"defualt=compact"*"did you mean default=?"* ]]
}

@test "the policy without its C reader (README's copy line before this release): doctor names it and the fix" {
  [ -z "${SLURM_PIN_INSTALLED:-}" ] || skip "the packages' C reader is found where they install it, not beside job_submit.lua"
  mv "$CLUSTER/slurm_pin_io.so" "$WORK/"
  run "$SLURM_PIN" doctor
  mv "$WORK/slurm_pin_io.so" "$CLUSTER/"
  [ "$status" -eq 1 ]
  [[ "$output" == *"policy: $CLUSTER/job_submit.lua: slurmctld would log: slurm-pin: policy disabled, jobs pass unchanged: cannot load its file reader slurm_pin_io"* ]]
  [[ "$output" == *"install slurm_pin_io.so beside job_submit.lua"* ]]
}

@test "a broken rules file: doctor shows every error, each naming its line" {
  printf 'return {\n  colour = 1,\n  rules = {\n    { name = "a", match = {}, action = { strategy = "packed" } },\n  },\n}\n' \
    >"$CLUSTER/rules.lua"
  SLURM_PIN_POLICY_FILE=$CLUSTER/rules.lua run "$SLURM_PIN" doctor
  [ "$status" -eq 1 ]
  [[ "$output" == *"policy: $CLUSTER/rules.lua:2: unknown key 'colour'"* ]]
  [[ "$output" == *"policy: $CLUSTER/rules.lua:4: rule 1 (a): unknown strategy 'packed'"* ]]
  [[ "${lines[-1]}" == "slurm-pin doctor: 2 problems found" ]]
}

@test "job_submit/lua without 'policy' on the plugstack line, and 'policy' without it, are each one line" {
  set_plugstack
  run "$SLURM_PIN" doctor
  [ "$status" -eq 1 ]
  [[ "$output" == *"slurm.conf runs job_submit/lua but the slurm_pin.so line has no 'policy'"*"add policy"* ]]
  grep -v '^JobSubmitPlugins' "$SLURM_CONF" >"$WORK/slurm.conf"
  set_plugstack policy
  run "$SLURM_PIN" doctor --slurm-conf "$WORK/slurm.conf"
  [ "$status" -eq 1 ]
  [[ "$output" == *"the slurm_pin.so line says 'policy' but slurm.conf has no JobSubmitPlugins=lua"* ]]
}

@test "a store others can write to, and one that does not exist" {
  chmod 777 "$STORE"
  run "$SLURM_PIN" doctor
  [ "$status" -eq 1 ]
  [[ "$output" == *"store $STORE: writable by group or others (mode 777): chmod go-w $STORE"* ]]
  chmod 755 "$STORE"
  set_plugstack policy
  sed -i "s|store=$STORE|store=$STORE-missing|" "$CLUSTER/plugstack.conf"
  run "$SLURM_PIN" doctor
  [ "$status" -eq 1 ]
  [[ "$output" == *"store $STORE-missing: no such directory: create it"* ]]
  # A directory above the store that anyone can write to (not sticky).
  install -d -m 777 "$WORK/open" && install -d -m 755 "$WORK/open/store"
  sed -i "s|store=$STORE-missing|store=$WORK/open/store|" "$CLUSTER/plugstack.conf"
  run "$SLURM_PIN" doctor
  [ "$status" -eq 1 ]
  [[ "$output" == *"store $WORK/open/store: $WORK/open above it is writable by anyone (mode 777)"* ]]
}

@test "doctor's command line: help, and a bad argument is exit status 2" {
  run "$SLURM_PIN" doctor --help
  [ "$status" -eq 0 ]
  [[ "$output" == *"--plugstack FILE"* ]]
  run "$SLURM_PIN" doctor --colour
  [ "$status" -eq 2 ]
}
