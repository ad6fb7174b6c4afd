#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile user and a careless admin, through a real Slurm: nothing they do
# may stall a node or the controller, escape the site's rules, forge what
# the policy recorded, or leave a job running with less binding than it
# reports. Jobs run as an unprivileged user; slurmctld runs job_submit/lua.

load slurm_helpers

setup_file() {
  export SLURM_PIN_JOB_SUBMIT=1 SLURM_PIN_POLICY_RECHECK=0
  slurm_up task/none
  printf 'slurm-pin-placement 1\ntask 0: 0 1\n' >"$WORK/good.placement"
  chmod 644 "$WORK/good.placement"
}
teardown_file() {
  pkill -f "$WORK/race.sh" 2>/dev/null || true
  slurm_down
}

# plugstack.conf with exactly these arguments (no threads_lib= unless given).
plugstack() { printf 'required %s %s\n' "$PLUGIN" "$*" >"$CLUSTER/plugstack.conf"; }

policy_file() { cat >"$CLUSTER/slurm-pin-policy.lua"; }

ctld_log() { cat "$CLUSTER/log/slurmctld.log"; }

# Seconds (with decimals) that "$@" takes; its status in $status.
timed() {
  local t0 t1
  t0=$(date +%s.%N)
  run --separate-stderr "$@"
  t1=$(date +%s.%N)
  elapsed=$(echo "$t1 - $t0" | bc)
}

setup() {
  plugstack "store=$STORE threads_lib=$BUILD/lib/libslurm_pin_threads.so"
  policy_file <<'POLICY'
return { rules = {} }
POLICY
}

@test "a placement file swapped with a FIFO 200 times never stalls a step or the node" {
  mkfifo -m 644 "$WORK/fifo"
  chown "$TEST_USER" "$WORK/fifo"
  cat >"$WORK/race.sh" <<'RACE'
#!/bin/bash
# Swaps x between a valid placement file and a FIFO as fast as it can.
cd "$1" || exit 1
while :; do ln -sfn good.placement x; ln -sfn fifo x; done
RACE
  chmod 755 "$WORK/race.sh"
  as_user setsid "$WORK/race.sh" "$WORK" &
  # Half the steps give the file as an option (srun checks it first), half
  # through its environment twin, which only slurmstepd reads.
  cat >"$WORK/steps.sh" <<STEPS
#!/bin/bash
for i in \$(seq 100); do
  timeout 30 srun --pin-strategy=file:$WORK/x true 2>>$WORK/race.err; echo "option rc=\$?"
  _SLURM_SPANK_OPTION_slurm_pin_pin_strategy=file:$WORK/x timeout 30 srun true 2>>$WORK/race.err; echo "env rc=\$?"
done
STEPS
  chmod 755 "$WORK/steps.sh"
  timed as_user sbatch --wait -n1 -c2 -o "$WORK/race.out" "$WORK/steps.sh"
  pkill -f "$WORK/race.sh" || true
  [ "$status" -eq 0 ]
  [ "$(grep -c 'rc=' "$WORK/race.out")" -eq 200 ]
  # Every step ended by itself: none was killed by timeout (124).
  ! grep -q 'rc=124' "$WORK/race.out" || false
  [ "$(grep -cvE 'rc=[01]$' "$WORK/race.out")" -eq 0 ]
  # The FIFO was met in slurmstepd, and said so in one line.
  grep -q "slurmstepd.*slurm-pin: $WORK/x: not a regular file" "$WORK/race.err"
  echo "200 steps in ${elapsed}s" >&3
  [ "$(echo "$elapsed < 150" | bc)" -eq 1 ]
  node_is_idle
}

@test "a range bomb is refused in srun and in slurmstepd, fast; the largest file costs slurmstepd little" {
  printf 'slurm-pin-placement 1\ntask 0: %s\n' "$(printf '0-1048576 %.0s' $(seq 60))" >"$WORK/bomb"
  chmod 644 "$WORK/bomb"
  timed as_user srun -c2 --pin-strategy=file:"$WORK/bomb" true
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--pin-strategy: $WORK/bomb:2: task 0: CPU 1048576 is beyond the largest CPU id"
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  timed as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_strategy=file:"$WORK/bomb" srun -c2 echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"slurm-pin: $WORK/bomb:2: task 0: CPU 1048576 is beyond this machine, whose highest CPU is"* ]]
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  # The largest placement file accepted (4 MiB of ranges): slurmstepd's
  # peak memory while its task runs.
  python3 -c "import sys; sys.stdout.write('slurm-pin-placement 1\ntask 0: ' + ','.join(['0-1'] * 1048560) + '\n')" \
    >"$WORK/big"
  chmod 644 "$WORK/big"
  as_user srun -c2 --pin-strategy=file:"$WORK/big" sleep 3 &
  peak=0
  for _ in $(seq 25); do
    for pid in $(pgrep -f 'slurmstepd: \[[0-9]+\.[0-9]+\]'); do
      kb=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
      [ "${kb:-0}" -gt "$peak" ] && peak=$kb
    done
    sleep 0.1
  done
  wait
  echo "slurmstepd peak with a 4 MiB placement file: ${peak} kB" >&3
  [ "$peak" -gt 0 ]
  [ "$peak" -lt 131072 ]
  node_is_idle
}

@test "allowed= holds in slurmstepd for options, their environment twins and a forged SLURM_PIN_POLICY" {
  plugstack "default=compact allowed=compact,none"
  for value in random file:"$WORK/good.placement"; do
    run --separate-stderr as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_strategy="$value" srun -c2 echo ran
    [ "$status" -ne 0 ]
    [[ "$output" != *ran* ]]
    [[ "$stderr" == *"slurm-pin: strategy '$value' is not allowed on this cluster: use one of compact,none"* ]]
  done
  run --separate-stderr as_user env SLURM_PIN_POLICY="slurm-pin: rule=x mode=enforce strategy=random" \
    srun -c2 sh -c 'echo "$SLURM_PIN_STRATEGY policy=${SLURM_PIN_POLICY:-unset}"'
  [ "$status" -eq 0 ]
  [ "$output" = "compact policy=unset" ]
  # With the policy on, the decision comes from the job record, never the
  # environment: the forged one is replaced by the real (empty) one.
  plugstack "default=compact allowed=compact,none policy"
  run --separate-stderr as_user env SLURM_PIN_POLICY="slurm-pin: rule=x mode=enforce strategy=random" \
    srun -c2 sh -c 'echo "$SLURM_PIN_STRATEGY policy=${SLURM_PIN_POLICY:-unset}"'
  [ "$status" -eq 0 ]
  [ "$output" = "compact policy=unset" ]
  node_is_idle
}

@test "under enforce, --pin-dryrun is refused in srun and in slurmstepd: the job never runs unbound" {
  plugstack "default=compact enforce"
  before=$(job_count)
  run --separate-stderr as_user srun -c2 --pin-dryrun echo ran
  [ "$status" -ne 0 ]
  expect_one_error_line srun "--pin-dryrun: this cluster binds every step with strategy 'compact' (enforce): remove --pin-dryrun"
  [ "$(job_count)" -eq "$before" ]
  run --separate-stderr as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_dryrun= srun -c2 echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"slurm-pin: --pin-dryrun: this cluster (enforce in plugstack.conf) binds every step of this job"* ]]
}

@test "the policy's endless loop, memory bomb, bytecode and wrong types: one error each, sbatch fast, jobs accepted" {
  ctld_pid=$(cat "$CLUSTER/run/slurmctld.pid")
  rss_before=$(awk '/VmRSS/ { print $2 }' "/proc/$ctld_pid/status")
  lua5.1 -e 'io.write(string.dump(loadstring("return { rules = {} }")))' >"$WORK/bytecode"
  for bad in 'while true do end' 'return { store = ("x"):rep(2^30) }' 'local s = "x" for i = 1, 40 do s = s .. s end return {}' \
             BYTECODE 'return { rules = { { name = "r", match = { nodes = { min = "a" } }, action = { strategy = "compact" } } } }'; do
    if [ "$bad" = BYTECODE ]; then cp "$WORK/bytecode" "$CLUSTER/slurm-pin-policy.lua"; else echo "$bad" | policy_file; fi
    before=$(ctld_log | grep -c "policy disabled" || true)
    for i in 1 2 3; do
      timed as_user sbatch -J "hostile$i" -c2 -o /dev/null --wrap true
      [ "$status" -eq 0 ]
      [[ "$output" == "Submitted batch job "* ]]
      echo "policy '${bad:0:20}...': sbatch took ${elapsed}s" >&3
      [ "$(echo "$elapsed < 3" | bc)" -eq 1 ]
    done
    [ "$(ctld_log | grep -c "policy disabled")" -eq $((before + 1)) ]
  done
  ctld_log | grep -q "policy disabled, jobs pass unchanged: $CLUSTER/slurm-pin-policy.lua: loading the policy went over its budget of 1000000 instructions"
  ctld_log | grep -q "policy disabled, jobs pass unchanged: $CLUSTER/slurm-pin-policy.lua: loading the policy went over its memory budget of 64 MiB"
  ctld_log | grep -q "precompiled Lua bytecode is not accepted"
  ctld_log | grep -q "nodes must be { min = N, max = M } with whole numbers"
  run "$SLURM_PIN" policy check "$CLUSTER/slurm-pin-policy.lua"
  [ "$status" -eq 1 ]
  [[ "$output" == *"nodes must be { min = N, max = M } with whole numbers, not min = a"* ]]
  rss_after=$(awk '/VmRSS/ { print $2 }' "/proc/$ctld_pid/status")
  echo "slurmctld RSS: ${rss_before} kB before, ${rss_after} kB after" >&3
  [ $((rss_after - rss_before)) -lt 262144 ]
  # Fixed, the policy is back for the next job.
  policy_file <<'POLICY'
return { partitions = { ["*"] = { strategy = "scatter" } }, rules = {} }
POLICY
  job=$(as_user sbatch --parsable -c2 -o /dev/null --wrap true)
  scontrol show job "$job" | grep -q "AdminComment=slurm-pin: rule=partition:\* mode=default strategy=scatter"
  scancel -u "$TEST_USER"
}

@test "missing policy modules: jobs accepted with one error, and slurmctld still starts" {
  mv "$CLUSTER/slurm_pin_policy.lua" "$CLUSTER/slurm_pin_policy.lua.away"
  touch "$CLUSTER/job_submit.lua"  # job_submit/lua reloads a changed script
  run as_user sbatch -c2 -o /dev/null --wrap true
  [ "$status" -eq 0 ]
  ctld_log | grep -q "slurm-pin: policy disabled, jobs pass unchanged: cannot load its module"
  "$LOCAL_CLUSTER" restart-ctld "$CLUSTER"
  run as_user sbatch -c2 -o /dev/null --wrap true
  [ "$status" -eq 0 ]
  ! grep -q "fatal: failed to initialize job_submit plugin" "$CLUSTER/log/slurmctld.log" || false
  mv "$CLUSTER/slurm_pin_policy.lua.away" "$CLUSTER/slurm_pin_policy.lua"
  touch "$CLUSTER/job_submit.lua"
}

@test "hostile job names forge no recorded field and no log line" {
  policy_file <<'POLICY'
return { rules = { { name = "by-name", match = {}, action = { strategy = "compact", profile = "%app" } } } }
POLICY
  job=$(as_user sbatch --parsable -J 'foo mode=enforce strategy=none rule=evil' -c2 -o /dev/null --wrap true)
  comment=$(scontrol show job "$job" | sed -n 's/.*AdminComment=\(.*\)$/\1/p')
  [[ "$comment" != *evil* ]]
  job=$(as_user sbatch --parsable -J "$(printf 'a\nslurmctld: forged')" -c2 -o /dev/null --wrap true)
  [ -n "$job" ]
  ! ctld_log | grep -q '^slurmctld: forged' || false
  # A valid name still becomes the profile.
  job=$(as_user sbatch --parsable -J plain -c2 -o /dev/null --wrap true)
  scontrol show job "$job" | grep -q "AdminComment=slurm-pin: rule=by-name mode=default strategy=compact profile=plain"
}

@test "the thread library: found beside the plugin, and a missing one stops the task with one line" {
  plugstack ""
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-threads=preload sh -c 'echo "$LD_PRELOAD"'
  [ "$status" -eq 0 ]
  [ "$output" = "$BUILD/lib/libslurm_pin_threads.so" ]
  plugstack "threads_lib=$WORK/nowhere.so"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-threads=preload --pin-verbose echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"slurm-pin: threads_lib= in plugstack.conf cannot be used: $WORK/nowhere.so: No such file or directory"* ]]
  [[ "$stderr" != *"places"* ]]  # nothing claims a binding
  # A plugin installed without its library beside it (its engine is there).
  mkdir -p "$CLUSTER/lonely"
  cp "$PLUGIN" "$CLUSTER/lonely/slurm_pin.so"
  cp -L "$BUILD/lib/libslurmpin.so.0" "$CLUSTER/lonely/"
  printf 'required %s\n' "$CLUSTER/lonely/slurm_pin.so" >"$CLUSTER/plugstack.conf"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-threads=ompt echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"the thread library libslurm_pin_threads.so is in none of $CLUSTER/lonely/libslurm_pin_threads.so, "* ]]
  [[ "$stderr" == *"(or set threads_lib= in plugstack.conf)"* ]]
  # OpenMP's nested-level lists are thread counts too.
  plugstack ""
  run --separate-stderr as_user env OMP_NUM_THREADS=2,2 srun -c2 --pin-strategy=compact sh -c 'echo "$SLURM_PIN_CPUS"'
  [ "$status" -eq 0 ]
  [ "$output" = "0 1" ]
}
