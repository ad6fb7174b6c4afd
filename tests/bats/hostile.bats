#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile user and a careless admin, through a real Slurm: nothing they do
# may stall a node or the controller, escape the site's rules, forge what
# the policy recorded, or leave a job running with less binding than it
# reports. Jobs run as an unprivileged user; slurmctld runs job_submit/lua.

load slurm_helpers

setup_file() {
  export SLURM_PIN_JOB_SUBMIT=1 SLURM_PIN_POLICY_RECHECK=0
  # A second partition on the same node, for moves between partitions.
  export SLURM_PIN_EXTRA_CONF="PartitionName=numa Nodes=ALL MaxTime=INFINITE State=UP"
  slurm_up task/none
  gcc -O1 -fopenmp "$PROGRAMS/omp_phases.c" -o "$WORK/bin/phases"
  printf 'int main(void) { return 0; }\n' >"$WORK/static.c"
  gcc -static -O1 "$WORK/static.c" -o "$WORK/bin/static_prog"
  cp /bin/true "$WORK/bin/suid_true"
  chmod 4755 "$WORK/bin/suid_true"
  chmod -R a+rX "$WORK/bin"
  printf 'slurm-pin-placement 1\ntask 0: 0 1\n' >"$WORK/good.placement"
  chmod 644 "$WORK/good.placement"
}
teardown_file() {
  pkill -f "$WORK/race.sh" 2>/dev/null || true
  slurm_down
}

# plugstack.conf with exactly these arguments (no threads_lib= unless given).
plugstack() { printf 'required %s run_dir=%s %s\n' "$PLUGIN" "$CLUSTER/pin-run" "$*" >"$CLUSTER/plugstack.conf"; }

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
  plugstack "store=$STORE"
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
  grep -q "error: .*slurm-pin: $WORK/x: not a regular file" "$WORK/race.err"
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

@test "allowed= holds in slurmstepd for options, their environment twins and a forged SLURM_PIN_POLICY_DECISION" {
  plugstack "default=compact allowed=compact,none"
  for value in random file:"$WORK/good.placement"; do
    run --separate-stderr as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_strategy="$value" srun -c2 echo ran
    [ "$status" -ne 0 ]
    [[ "$output" != *ran* ]]
    [[ "$stderr" == *"slurm-pin: strategy '$value' is not allowed on this cluster: use one of compact,none"* ]]
  done
  forged="slurm-pin: rule=x mode=enforce strategy=random"
  run --separate-stderr as_user env SLURM_PIN_POLICY_DECISION="$forged" SLURM_PIN_POLICY="$forged" \
    srun -c2 sh -c 'echo "$SLURM_PIN_STRATEGY policy=${SLURM_PIN_POLICY_DECISION:-unset} old=${SLURM_PIN_POLICY:-unset}"'
  [ "$status" -eq 0 ]
  [ "$output" = "compact policy=unset old=unset" ]
  # With the policy on, the decision comes from the job record, never the
  # environment: the forged one is replaced by the real (empty) one.
  plugstack "default=compact allowed=compact,none policy"
  forged="slurm-pin: rule=x mode=enforce strategy=random"
  run --separate-stderr as_user env SLURM_PIN_POLICY_DECISION="$forged" SLURM_PIN_POLICY="$forged" \
    srun -c2 sh -c 'echo "$SLURM_PIN_STRATEGY policy=${SLURM_PIN_POLICY_DECISION:-unset} old=${SLURM_PIN_POLICY:-unset}"'
  [ "$status" -eq 0 ]
  [ "$output" = "compact policy=unset old=unset" ]
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
  # Restarted only once that job is over: a job allocated as slurmctld stops
  # is recovered as running without ever reaching slurmd, and holds the
  # node from the next test (CI on Debian 13, stop 53).
  node_is_idle
  "$LOCAL_CLUSTER" restart-ctld "$CLUSTER"
  run as_user sbatch -c2 -o /dev/null --wrap true
  [ "$status" -eq 0 ]
  ! grep -q "fatal: failed to initialize job_submit plugin" "$CLUSTER/log/slurmctld.log" || false
  node_is_idle
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
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-thread-binding=preload sh -c 'echo "$LD_PRELOAD"'
  [ "$status" -eq 0 ]
  [ "$output" = "$BUILD/lib/libslurm_pin_threads.so" ]
  plugstack "threads_lib=$WORK/nowhere.so"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-thread-binding=preload --pin-verbose echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"slurm-pin: threads_lib= in plugstack.conf cannot be used: $WORK/nowhere.so: No such file or directory"* ]]
  [[ "$stderr" != *"places"* ]]  # nothing claims a binding
  # A plugin installed without its library beside it (its engine is there).
  mkdir -p "$CLUSTER/lonely"
  cp "$PLUGIN" "$CLUSTER/lonely/slurm_pin.so"
  cp -L "$BUILD/lib/libslurmpin_frontend.so" "$CLUSTER/lonely/"
  printf 'required %s\n' "$CLUSTER/lonely/slurm_pin.so" >"$CLUSTER/plugstack.conf"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-thread-binding=ompt echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"the thread library libslurm_pin_threads.so is in none of $CLUSTER/lonely/libslurm_pin_threads.so, "* ]]
  [[ "$stderr" == *"(or set threads_lib= in plugstack.conf)"* ]]
  # A launcher's ranks start through the library whatever their thread
  # binding: the batch step that would prepare them fails the same way,
  # rather than say its ranks are placed while they run unbound.
  run as_user sbatch --wait -o "$WORK/lonely.out" -c2 --pin-strategy=compact --pin-verbose --wrap 'echo ran'
  [ "$status" -ne 0 ]
  ! grep -q '^ran$' "$WORK/lonely.out" || false
  grep -q "the thread library libslurm_pin_threads.so is in none of $CLUSTER/lonely/libslurm_pin_threads.so" "$WORK/lonely.out"
  ! grep -q "its ranks are placed" "$WORK/lonely.out" || false
  # OpenMP's nested-level lists are thread counts too.
  plugstack ""
  run --separate-stderr as_user env OMP_NUM_THREADS=2,2 srun -c2 --pin-strategy=compact sh -c 'echo "$SLURM_PIN_CPUS"'
  [ "$status" -eq 0 ]
  [ "$output" = "0 1" ]
}

# ---- second round (tests one per hole) -------------------------------------

# A policy whose enforced rule the tests check is still in force.
enforcing_policy() {
  policy_file <<'POLICY'
return {
  partitions = { ["*"] = { strategy = "scatter" } },
  rules = {
    { name = "bench-compact", match = { account = "benchmark" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "numa-compact", match = { partition = "numa" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "by-app", match = { app = { "lulesh", "amg" } }, action = { strategy = "scatter" } },
  },
}
POLICY
}

comment_of() { scontrol show job "$1" | sed -n 's/.*AdminComment=\(.*\)$/\1/p' | sed 's/ *$//'; }

@test "1: a script of 20,000 srun lines costs its own decision only; the enforced rule holds for the next job" {
  enforcing_policy
  disabled=$(ctld_log | grep -c "policy disabled" || true)
  python3 -c "print('#!/bin/bash'); [print('srun ./app%d' % i) for i in range(20000)]" >"$WORK/huge.sh"
  chmod 644 "$WORK/huge.sh"
  timed as_user sbatch -c2 -o /dev/null -H "$WORK/huge.sh"
  [ "$status" -eq 0 ]
  echo "sbatch of 20,000 srun lines: ${elapsed}s" >&3
  [ "$(echo "$elapsed < 3" | bc)" -eq 1 ]
  scancel -u "$TEST_USER"
  job=$(as_user sbatch --parsable -A benchmark -c2 -o /dev/null -H --pin-strategy=scatter --wrap true)
  [ "$(comment_of "$job")" = "slurm-pin: rule=bench-compact mode=enforce strategy=compact" ]
  [ "$(ctld_log | grep -c "policy disabled" || true)" -eq "$disabled" ]
  scancel -u "$TEST_USER"
}

@test "2: moving a held job to another partition or account is decided again; the user's choice loses to enforce" {
  enforcing_policy
  plugstack "policy"
  job=$(as_user sbatch --parsable -p debug -c2 -H --pin-strategy=scatter -o "$WORK/moved.out" \
        --wrap 'srun -c2 sh -c "echo strategy=\$SLURM_PIN_STRATEGY decision=\$SLURM_PIN_POLICY_DECISION"')
  [[ "$(comment_of "$job")" == *"rule=partition:* mode=default strategy=scatter applied=no"* ]]
  # The user's own move would change the decision, which only an
  # administrator may record: refused, the job stays where it was.
  run as_user scontrol update job "$job" Partition=numa
  [ "$status" -ne 0 ]
  scontrol show job "$job" | grep -q " Partition=debug "
  run as_user scontrol update job "$job" Account=benchmark
  [ "$status" -ne 0 ]
  ctld_log | grep -q "slurm-pin: job '$job': change by uid '$(id -u "$TEST_USER")' refused: it would change the site policy's decision"
  # An administrator's move is decided again and recorded; the job runs by it.
  # (Slurm 24.11 may answer "Resource temporarily unavailable", to any
  # admin, for several seconds on a loaded machine: try for up to 30 s, and
  # show slurmctld's last words when it never takes the change.)
  for _ in $(seq 30); do scontrol update job "$job" Partition=numa && break; sleep 1; done
  [ "$(comment_of "$job")" = "slurm-pin: rule=numa-compact mode=enforce strategy=compact" ] ||
    { ctld_log | tail -20; false; }
  scontrol release "$job"
  for _ in $(seq 100); do [ -s "$WORK/moved.out" ] && break; sleep 0.2; done
  for _ in $(seq 100); do squeue -h -j "$job" | grep -q . || break; sleep 0.2; done
  [ "$(cat "$WORK/moved.out")" = "strategy=compact decision=slurm-pin: rule=numa-compact mode=enforce strategy=compact" ]
  # A job naming two partitions the policy decides differently is refused.
  run --separate-stderr as_user sbatch -p debug,numa -c2 -o /dev/null --wrap true
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"slurm-pin: the site policy places jobs differently in partitions debug and numa: submit to one of them"* ]]
  scancel -u "$TEST_USER"
}

@test "3: a FIFO, a link or another user's file as the store's .index never stalls slurmctld" {
  enforcing_policy
  sed -i "s|return {|return { store = \"$WORK/fifo-store\",|" "$CLUSTER/slurm-pin-policy.lua"
  install -d -o "$TEST_USER" -m 755 "$WORK/fifo-store"
  as_user mkfifo "$WORK/fifo-store/.index"
  for i in 1 2 3; do
    timed as_user timeout 20 sbatch -J lulesh -c2 -o /dev/null -H --wrap true
    [ "$status" -eq 0 ]
    echo "sbatch with a FIFO as .index: ${elapsed}s" >&3
    [ "$(echo "$elapsed < 3" | bc)" -eq 1 ]
  done
  timed timeout 20 sinfo -h
  [ "$status" -eq 0 ]
  job=$(as_user sbatch --parsable -J lulesh -c2 -o /dev/null -H --wrap true)
  [ "$(comment_of "$job")" = "slurm-pin: rule=by-app mode=default strategy=scatter" ]
  # A store the user can write, or an index that is a link: refused, never read.
  rm -f "$WORK/fifo-store/.index"
  ln -s /etc/passwd "$WORK/fifo-store/.index"
  run as_user timeout 20 sbatch -J x -c2 -o /dev/null -H --wrap true
  [ "$status" -eq 0 ]
  scancel -u "$TEST_USER"
}

@test "4: a placement file of 300 regions: the last ones are applied, as verbose reports" {
  plugstack ""
  {
    echo 'slurm-pin-placement 1'
    echo 'task 0: 0 1'
    for i in $(seq 1 298); do echo "task 0 region filler$i: 0 1"; done
    echo 'task 0 region main._omp_fn.0: 1 0'
    echo 'task 0 region main._omp_fn.1: 1 1'
  } >"$WORK/many.placement"
  chmod 644 "$WORK/many.placement"
  run --separate-stderr as_user env OMP_NUM_THREADS=2 srun -c2 --pin-strategy="file:$WORK/many.placement" \
    --pin-phases --pin-verbose "$WORK/bin/phases" 2
  [ "$status" -eq 0 ]
  [[ "$stderr" == *", 300 regions"* ]]
  grep -q "^region 1 thread 0 cpu 1 mask 1$" <<<"$output"
  grep -q "^region 1 thread 1 cpu 0 mask 0$" <<<"$output"
  grep -q "^region 2 thread 0 cpu 1 mask 1$" <<<"$output"
  grep -q "^region 2 thread 1 cpu 1 mask 1$" <<<"$output"
}

@test "5: per-region places over 128 KiB reach the task through its task file, and are applied" {
  plugstack ""
  python3 - "$WORK/wide.placement" <<'PY'
import sys
places = " ".join(["0", "1"] * 64)  # 128 threads on 2 CPUs
with open(sys.argv[1], "w") as f:
    f.write("slurm-pin-placement 1\ntask 0: %s\n" % places)
    for i in range(600):
        f.write("task 0 region filler%d: %s\n" % (i, places))
    f.write("task 0 region main._omp_fn.0: %s\n" % " ".join(["1", "0"] * 64))
    f.write("task 0 region main._omp_fn.1: %s\n" % " ".join(["1"] * 128))
PY
  chmod 644 "$WORK/wide.placement"
  run --separate-stderr as_user env OMP_NUM_THREADS=128 srun -c2 --pin-strategy="file:$WORK/wide.placement" \
    --pin-phases --pin-oversubscribe --pin-verbose sh -c 'echo "file=$SLURM_PIN_TASK_FILE"; exec '"$WORK/bin/phases"' 1'
  [ "$status" -eq 0 ]
  [[ "$stderr" == *", 602 regions"* ]]
  [[ "$output" == *"file=/proc/self/fd/"* ]]
  [ "$(grep -c '^region 1 thread [0-9]* cpu 1 mask 1$' <<<"$output")" -eq 64 ]
  [ "$(grep -c '^region 2 thread [0-9]* cpu 1 mask 1$' <<<"$output")" -eq 128 ]
}

# $WORK/regions.profile: 4000 regions of 128 threads (oversubscribed on the
# 2 CPUs; sparse, 4 MB), a second or two of placing even on both CPUs.
regions_profile() {
  python3 - "$WORK/regions.profile" <<'PY'
import sys
n = 128
with open(sys.argv[1], "w") as f:
    f.write("slurm-pin-profile 1\nthreads %d\nedges simple\n" % n)
    f.writelines("%d %d 1\n" % (i, (i + 1) % n) for i in range(n))
    for r in range(4000):
        f.write("region r%d\nedges simple\n" % r)
        f.writelines("%d %d %d\n" % (i, (i + 1 + r) % n if (i + 1 + r) % n != i else (i + 1) % n, 1 + (i + r) % 9)
                     for i in range(n))
PY
  chmod 644 "$WORK/regions.profile"
}

@test "6: a profile slurmstepd cannot use costs it its first lines; any profile is bounded in bytes and time" {
  # 8192 threads (56 MB of matrices) on a node of 2 CPUs.
  python3 - "$WORK/huge.profile" <<'PY'
import sys
n = 8192
with open(sys.argv[1], "w") as f:
    f.write("slurm-pin-profile 1\nthreads %d\nmatrix simple\n" % n)
    row = " ".join(["1"] * n) + "\n"
    for _ in range(n // 2):
        f.write(row)
PY
  chmod 644 "$WORK/huge.profile"
  head -c 1048576 "$WORK/huge.profile" >"$WORK/head.profile"
  chmod 644 "$WORK/head.profile"
  plugstack ""
  # Over the site's file bound (16 MiB), through the option's environment
  # twin, which only slurmstepd reads:
  timed as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_strategy=lpgp \
    _SLURM_SPANK_OPTION_slurm_pin_pin_profile="$WORK/huge.profile" srun -c2 echo ran
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"$WORK/huge.profile: file is larger than 16 MiB"* ]]
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  # Within it, but for 8192 threads: refused at its threads line (2 CPUs,
  # at most 64 threads sharing one).
  timed as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_strategy=lpgp \
    _SLURM_SPANK_OPTION_slurm_pin_pin_profile="$WORK/head.profile" srun -c2 echo ran
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"a profile of 8192 threads, but at most 128 can run here"* ]]
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  # 4000 regions: the site's time bound ends their placing.
  regions_profile
  plugstack "max_time=0.1"
  timed as_user srun -c2 --pin-strategy=lpgp --pin-profile="$WORK/regions.profile" --pin-phases --pin-oversubscribe echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"placing this step took longer than the site allows"* ]]
  [ "$(echo "$elapsed < 10" | bc)" -eq 1 ]
  # Without per-region pinning the regions are not even read.
  timed as_user srun -c2 --pin-strategy=lpgp --pin-profile="$WORK/regions.profile" --pin-oversubscribe echo ran
  [ "$status" -eq 0 ]
  node_is_idle
}

@test "7: --pin-thread-binding=preload refuses a static or set-user-ID program instead of claiming places" {
  plugstack ""
  for prog in static_prog suid_true; do
    run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-thread-binding=preload --pin-verbose "$WORK/bin/$prog"
    [ "$status" -ne 0 ]
    [[ "$stderr" == *"slurm-pin's thread library cannot be loaded into $WORK/bin/$prog"* ]]
    [[ "$stderr" != *"places"* ]]
  done
  [[ "$stderr" == *"set-user-ID"* ]]
  # A dynamic program found through PATH passes.
  run --separate-stderr as_user srun -c2 --pin-strategy=compact --pin-thread-binding=preload true
  [ "$status" -eq 0 ]
}

@test "8: text other writers keep in AdminComment never stands for the policy's decision" {
  enforcing_policy
  plugstack "policy"
  job=$(as_user sbatch --parsable -A benchmark -c2 -H -o "$WORK/note.out" \
        --wrap 'srun -c2 sh -c "echo strategy=\$SLURM_PIN_STRATEGY decision=\$SLURM_PIN_POLICY_DECISION"')
  scontrol update job "$job" AdminComment="user note: slurm-pin: rule=evil mode=enforce strategy=none"
  [ "$(comment_of "$job")" = "slurm-pin: rule=bench-compact mode=enforce strategy=compact" ]
  scontrol update job "$job" AdminComment="site note | slurm-pin: rule=evil mode=enforce strategy=none | after"
  [ "$(comment_of "$job")" = "site note | after | slurm-pin: rule=bench-compact mode=enforce strategy=compact" ]
  scontrol release "$job"
  for _ in $(seq 100); do [ -s "$WORK/note.out" ] && break; sleep 0.2; done
  for _ in $(seq 100); do squeue -h -j "$job" | grep -q . || break; sleep 0.2; done
  [ "$(cat "$WORK/note.out")" = "strategy=compact decision=slurm-pin: rule=bench-compact mode=enforce strategy=compact" ]
}

@test "9: slurmd never saves the topology through a directory a user controls, and steps never trust one" {
  install -d -o "$TEST_USER" "$WORK/planted"
  echo "root's own" >"$CLUSTER/secret"
  chmod 600 "$CLUSTER/secret"
  ln -s "$CLUSTER/secret" "$WORK/planted/topology.xml"
  plugstack "topology_cache=$WORK/planted/topology.xml"
  "$LOCAL_CLUSTER" restart-slurmd "$CLUSTER"
  [ "$(cat "$CLUSTER/secret")" = "root's own" ]
  [ "$(stat -c %a "$CLUSTER/secret")" = 600 ]
  # The path crosses /tmp and the user's directory: the admin's error, in
  # slurmd's log and for every step, whatever is there.
  grep -q "slurm-pin: plugstack.conf: topology_cache=$WORK/planted/topology.xml: /tmp is writable by group or others" \
    "$CLUSTER/log/slurmd.log"
  rm "$WORK/planted/topology.xml"
  printf '<?xml version="1.0"?>\n<topology>nonsense</topology>\n' >"$WORK/planted/topology.xml"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"topology_cache=$WORK/planted/topology.xml: /tmp is writable by group or others"* ]]
  node_is_idle
  plugstack ""
  "$LOCAL_CLUSTER" restart-slurmd "$CLUSTER"
}

@test "10: enforce holds every binding setting, in srun and in slurmstepd; enforce=strategy only the strategy" {
  plugstack "default=compact enforce"
  for opt in --pin-granularity=numa --pin-smt=1 --pin-oversubscribe --pin-thread-binding=preload --pin-mem=interleave; do
    run --separate-stderr as_user srun -c2 "$opt" echo ran
    [ "$status" -ne 0 ]
    expect_one_error_line srun "this cluster binds every step as it says (enforce: "
    [[ "$stderr" == *"remove ${opt%%=*}"* ]]
  done
  run --separate-stderr as_user env _SLURM_SPANK_OPTION_slurm_pin_pin_granularity=numa srun -c2 echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"slurm-pin: this cluster binds every step as it says (enforce: core): remove --pin-granularity"* ]]
  plugstack "default=compact enforce=strategy"
  run --separate-stderr as_user srun -c2 --pin-granularity=numa sh -c 'echo "$OMP_PLACES"'
  [ "$status" -eq 0 ]
  [ "$output" = "{0,1},{0,1}" ]
}

@test "11: evaluate's rule for a hostile program name is valid Lua that policy check accepts" {
  run /usr/bin/python3 - "$BATS_TEST_DIRNAME/../../evaluate" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import evaluate_report as r
rec = {"strategy": "compact", "why": "why\rreturn nil", "decided": True, "figure": "time", "runs_needed": None,
       "failed": False}
print(r.rule({"app": 'x"\r\nreturn {} -- \x1b', "runs": 3, "noise": 0, "profile": ""}, rec))
PY
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" >"$WORK/evaluated.lua"
  run "$SLURM_PIN" policy check "$WORK/evaluated.lua"
  [ "$status" -eq 0 ]
  [[ "$output" == *"ok, 1 rules"* ]]
}

@test "12: profiles show prints no terminal escapes from an imported profile" {
  install -d -m 755 "$WORK/escape-store"
  esc=$(printf '\033')
  printf 'slurm-pin-profile 1\nthreads 2\nthread_starts main %s]0;owned%sX\nmatrix simple\n0 1\n1 0\nregion r%s[2J\nmatrix simple\n0 1\n1 0\n' \
    "$esc" "$(printf '\007')" "$esc" >"$WORK/escapes.profile"
  run "$SLURM_PIN" profiles import "$WORK/escapes.profile" --app esc --store "$WORK/escape-store"
  [ "$status" -eq 0 ]
  run "$SLURM_PIN" profiles show esc --store "$WORK/escape-store"
  [ "$status" -eq 0 ]
  [[ "$output" != *"$esc"* ]]
  [[ "$output" != *$'\a'* ]]
  [[ "$output" == *'r\x1b[2J'* ]]
  [[ "$output" == *'\x1b]0;owned\x07X'* ]]
}

# ---- third round (tests one per hole) --------------------------------------

# A second unprivileged user, who must not read the first one's data.
OTHER_USER=slurmpin-other
other_user() { id "$OTHER_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/bash "$OTHER_USER"; }

@test "3.1: a script word of 1 MB is decided at once and no other submission waits; nor does a held job's rename" {
  enforcing_policy
  # The unanchored basename pattern was quadratic in one word: 70,000
  # characters stalled slurmctld 15-23 s, 1 MB would take about 45 minutes.
  python3 -c "print('#!/bin/bash'); print('srun ' + 'a' * 1048576 + '/')" >"$WORK/word.sh"
  chmod 644 "$WORK/word.sh"
  t0=$(date +%s.%N)
  as_user timeout 120 sbatch -c2 -o /dev/null -H "$WORK/word.sh" >"$WORK/word.out" 2>&1 3>&- &
  attacker=$!
  sleep 0.3
  # Another user's job, submitted while the attacker's is being decided.
  timed sbatch --parsable -c2 -o /dev/null -H --wrap true
  [ "$status" -eq 0 ]
  echo "another user's sbatch: ${elapsed}s" >&3
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  wait "$attacker"
  t1=$(date +%s.%N)
  echo "the attacker's sbatch: $(echo "$t1 - $t0" | bc)s" >&3
  [ "$(echo "$t1 - $t0 < 5" | bc)" -eq 1 ]
  job=$(grep -o '[0-9]*$' "$WORK/word.out")
  [ -n "$job" ]
  # A held job's change of name decides it again: as fast.
  timed scontrol update JobId="$job" Name=renamed
  [ "$status" -eq 0 ]
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  scancel "$job"
  scancel -u root
}

@test "3.2: run_dir= under /tmp is the admin's error on every step, whatever a user made there first" {
  enforcing_policy
  local dir=/tmp/slurm-pin-hostile-run.$$
  rm -rf "$dir"
  plugstack "policy run_dir=$dir"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact echo ran
  [ "$status" -ne 0 ]
  [[ "$output" != *ran* ]]
  [[ "$stderr" == *"/tmp is writable by group or others"* ]]
  first=$stderr
  # The directory does not exist: a user makes it first. Nothing changes
  # for anyone: the path was refused before, for what it crosses.
  as_user mkdir "$dir"
  run --separate-stderr srun -c2 --pin-strategy=compact echo ran
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"/tmp is writable by group or others"* ]]
  [ "$stderr" = "$first" ]
  rm -rf "$dir"
  # srun checks plugstack.conf too, for a job that asks for slurm-pin.
  plugstack "run_dir=$dir"
  run --separate-stderr as_user srun -c2 --pin-strategy=compact echo ran
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"run_dir=$dir: /tmp is writable by group or others"* ]]
  plugstack "policy"  # the default run_dir, under /run: root's
  run --separate-stderr as_user srun -c2 --pin-strategy=compact echo ran
  [ "$status" -eq 0 ]
  [ "$output" = ran ]
  node_is_idle
}

# A step of task 0 whose thread places need the task file, 600 regions of
# 128 threads (over 128 KiB), kept running with `sleep`.
wide_placement() {
  python3 - "$WORK/wide.placement" <<'PY'
import sys
places = " ".join(["0", "1"] * 64)
with open(sys.argv[1], "w") as f:
    f.write("slurm-pin-placement 1\ntask 0: %s\n" % places)
    for i in range(600):
        f.write("task 0 region filler%d: %s\n" % (i, places))
PY
  chmod 644 "$WORK/wide.placement"
}

@test "3.3: root writes no task file: each task's places travel in a descriptor it inherits, gone with it" {
  wide_placement
  plugstack ""
  before=$(find "$CLUSTER/pin-run" -type f 2>/dev/null | grep -v '/placements/' | sort)
  # Eight steps at once, each with 128 KiB+ of places per task.
  for i in $(seq 8); do
    as_user env OMP_NUM_THREADS=128 srun -c2 --pin-strategy="file:$WORK/wide.placement" --pin-phases \
      --pin-oversubscribe sh -c 'f=$SLURM_PIN_TASK_FILE; echo "file=$f $(readlink "$f") $(head -c 16 "$f")"; sleep 2' \
      >"$WORK/wide.$i.out" 2>&1 3>&- &
  done
  sleep 1
  # While they run: nothing of theirs under run_dir but the bounded cache.
  during=$(find "$CLUSTER/pin-run" -type f 2>/dev/null | grep -v '/placements/' | sort)
  wait
  for i in $(seq 8); do
    grep -Eq '^file=/proc/self/fd/[0-9]+ /memfd:slurm-pin-task \(deleted\) slurm-pin-task 1$' "$WORK/wide.$i.out" ||
      { cat "$WORK/wide.$i.out"; false; }
  done
  [ "$during" = "$before" ]
  [ ! -e "$CLUSTER/pin-run/steps" ]
}

@test "3.4: a program named like a launcher's daemon is placed as any program, under enforce too" {
  cp /bin/grep "$WORK/bin/orted"
  chmod 755 "$WORK/bin/orted"
  plugstack "default=compact enforce"
  run --separate-stderr as_user srun -n2 -c1 --cpu-bind=none "$WORK/bin/orted" Cpus_allowed_list: /proc/self/status
  [ "$status" -eq 0 ]
  [ "$(sort <<<"$output" | awk '{ print $2 }' | tr '\n' ' ')" = "0 1 " ]
  # The same name through PATH, a directory of the user's first.
  run --separate-stderr as_user env PATH="$WORK/bin:$PATH" srun -n2 -c1 orted Cpus_allowed_list: /proc/self/status
  [ "$status" -eq 0 ]
  [ "$(sort <<<"$output" | awk '{ print $2 }' | tr '\n' ' ')" = "0 1 " ]
}

@test "3.5: a task's places are readable by its own user only" {
  other_user
  wide_placement
  plugstack ""
  as_user env OMP_NUM_THREADS=128 srun -c2 --pin-strategy="file:$WORK/wide.placement" --pin-phases \
    --pin-oversubscribe sleep 7 >/dev/null 2>&1 3>&- &
  local pid=
  for _ in $(seq 50); do
    pid=$(pgrep -u "$TEST_USER" -x sleep | head -1)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ]
  file=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^SLURM_PIN_TASK_FILE=//p')
  [[ "$file" == /proc/self/fd/* ]]
  fd=/proc/$pid/fd/${file##*/}
  [ "$(runuser -u "$TEST_USER" -- head -c 16 "$fd")" = "slurm-pin-task 1" ]
  run runuser -u "$OTHER_USER" -- head -c 16 "$fd"
  [ "$status" -ne 0 ]
  [[ "$output" != *slurm-pin-task* ]]
  # Nor anywhere on the node's file systems under run_dir.
  [ -z "$(find "$CLUSTER/pin-run" -type f -perm -o=r ! -path '*/placements/*' ! -name topology.xml 2>/dev/null)" ]
  wait
}

# ---- fourth round (issue 60): root's tools run no user's code --------------

# A directory of the test user's with libslurmfull.so and slurm_pin.so whose
# constructors leave $1/ran, and Lua modules named as slurm-pin's that do too.
user_traps() {
  local dir=$1
  as_user mkdir -p "$dir"
  cat >"$WORK/trap.c" <<C
#include <stdio.h>
__attribute__((constructor)) static void trap(void) {
  FILE *f = fopen("$dir/ran", "a");
  if (f) fputs("a user's library ran\n", f), fclose(f);
}
int slurm_pin_doctor(void) { return 0; }
C
  as_user gcc -shared -fPIC "$WORK/trap.c" -o "$dir/libslurmfull.so"
  as_user cp "$dir/libslurmfull.so" "$dir/slurm_pin.so"
  for m in slurm_pin_job_submit slurm_pin_policy slurm_pin_sandbox slurm_pin_strategies; do
    printf 'io.open("%s/ran", "a"):write("a user'"'"'s %s ran\\n")\nreturn {}\n' "$dir" "$m" | as_user tee "$dir/$m.lua" >/dev/null
  done
  as_user cp "$dir/libslurmfull.so" "$dir/slurm_pin_io.so"
}

@test "4.1: doctor run in a user's directory loads nothing from it; a line without a path is looked for as Slurm does" {
  user_traps "$WORK/trap"
  # slurm.conf without PluginDir (Debian's default), the line without a path.
  grep -vi '^PluginDir' "$SLURM_CONF" >"$CLUSTER/nodir.conf"
  echo "optional slurm_pin.so store=$STORE" >"$CLUSTER/relative-plugstack.conf"
  run bash -c "cd '$WORK/trap' && '$SLURM_PIN' doctor --slurm-conf '$CLUSTER/nodir.conf' --plugstack '$CLUSTER/relative-plugstack.conf'"
  echo "$output"
  [ ! -e "$WORK/trap/ran" ]
  [[ "$output" != *"cannot load"* ]]
  if [ -n "${SLURM_PIN_INSTALLED:-}" ]; then
    # Slurm's own plugin directory holds the packages' plugin: the line is valid.
    [[ "$output" != *"relative-plugstack.conf:1:"* ]]
  else
    [[ "$output" == *"relative-plugstack.conf:1: slurm_pin.so is not in Slurm's plugin directory (/"* ]]
  fi
}

@test "4.2: policy probe and doctor never load a policy module from the current directory" {
  user_traps "$WORK/trap"
  mkdir -p "$CLUSTER/bare"
  cp "$CLUSTER/job_submit.lua" "$CLUSTER/bare/"  # installed without its modules: what the probe is for
  run bash -c "cd '$WORK/trap' && '$SLURM_PIN' policy probe '$CLUSTER/bare'"
  echo "$output"
  [ ! -e "$WORK/trap/ran" ]
  [[ "$output" != *"no file './"* ]]
  # From a build, the modules are missing (the packages' would be found where they install them).
  if [ -z "${SLURM_PIN_INSTALLED:-}" ]; then
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot load its module"* ]]
  fi
  run bash -c "cd '$WORK/trap' && '$SLURM_PIN' doctor --policy-dir '$CLUSTER/bare'"
  [ ! -e "$WORK/trap/ran" ]
  if [ -z "${SLURM_PIN_INSTALLED:-}" ]; then
    [ "$status" -eq 1 ]
    [[ "$output" == *"policy: $CLUSTER/bare/job_submit.lua: slurmctld would log: slurm-pin: policy disabled"* ]]
  fi
  # A relative directory given to the probe is its own directory, not Lua's './'.
  run bash -c "cd '$CLUSTER' && '$SLURM_PIN' policy probe ."
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" == "$CLUSTER/job_submit.lua: the policy "*" in force" ]]
}

@test "4.3: doctor --plugstack runs none of the code a checked file names, and says what is wrong with it" {
  user_traps "$WORK/trap"
  echo "required $WORK/trap/slurm_pin.so store=$STORE" >"$WORK/proposed.conf"
  run "$SLURM_PIN" doctor --plugstack "$WORK/proposed.conf"
  echo "$output"
  [ "$status" -eq 1 ]
  [ ! -e "$WORK/trap/ran" ]
  [[ "$output" == *"proposed.conf:1: $WORK/trap/slurm_pin.so: "*"slurmstepd would load whatever its owner puts there: use "*"slurm_pin.so"* ]]
  # Root's own copy of another library, in a directory only root can write:
  # not this slurm-pin's plugin, so still never loaded.
  install -d -m 755 "$CLUSTER/other"
  install -m 755 "$WORK/trap/slurm_pin.so" "$CLUSTER/other/slurm_pin.so"
  echo "required $CLUSTER/other/slurm_pin.so store=$STORE" >"$WORK/proposed.conf"
  run "$SLURM_PIN" doctor --plugstack "$WORK/proposed.conf"
  [ "$status" -eq 1 ]
  [ ! -e "$WORK/trap/ran" ]
  [[ "$output" == *"$CLUSTER/other/slurm_pin.so is not the plugin this doctor was installed with ("*"slurm_pin.so)"* ]]
  # The real plugin through a link a user controls is refused as well.
  as_user mkdir "$WORK/trap/link"
  as_user ln -s "$PLUGIN" "$WORK/trap/link/slurm_pin.so"
  echo "required $WORK/trap/link/slurm_pin.so store=$STORE" >"$WORK/proposed.conf"
  run "$SLURM_PIN" doctor --plugstack "$WORK/proposed.conf"
  [ "$status" -eq 1 ]
  [[ "$output" == *"slurmstepd would load whatever its owner puts there"* ]]
  # And the plugin itself is checked by its own code, as before.
  echo "required $PLUGIN store=$STORE default=packed" >"$WORK/proposed.conf"
  run "$SLURM_PIN" doctor --plugstack "$WORK/proposed.conf"
  [ "$status" -eq 1 ]
  [[ "$output" == *"proposed.conf:1: default=packed: unknown strategy 'packed'"* ]]
  [ ! -e "$WORK/trap/ran" ]
}

@test "4.4: a backtracking pattern in the policy: policy check answers at once, sbatch is not held" {
  policy_file <<'POLICY'
local s = ("a"):rep(3000)
return { store = s:match("(.-)a(.-)a(.-)b"), rules = {} }
POLICY
  timed "$SLURM_PIN" policy check "$CLUSTER/slurm-pin-policy.lua"
  echo "policy check took ${elapsed}s" >&3
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"string patterns are not available in a policy file"* ]]
  [ "$(echo "$elapsed < 3" | bc)" -eq 1 ]
  before=$(ctld_log | grep -c "policy disabled" || true)
  timed as_user sbatch -c2 -o /dev/null --wrap true
  echo "sbatch took ${elapsed}s" >&3
  [ "$status" -eq 0 ]
  [ "$(echo "$elapsed < 3" | bc)" -eq 1 ]
  [ "$(ctld_log | grep -c "policy disabled")" -eq $((before + 1)) ]
  ctld_log | grep -q "string patterns are not available in a policy file"
  scancel -u "$TEST_USER"
  node_is_idle
}

@test "4.5: profile --mpi refuses a work directory another user could swap; nothing reaches the store" {
  # Root fills the admin's store; the work directory's parent is one the test user can change.
  as_user mkdir -m 755 "$WORK/theirs"
  install -d -m 777 "$CLUSTER/open"
  for parent in "$WORK/theirs" "$CLUSTER/open"; do
    run --separate-stderr "$SLURM_PIN" profile --mpi=mpich --app forged --ranks 2 --store "$STORE" \
      --workdir "$parent" -- /bin/true
    echo "$stderr"
    [ "$status" -eq 1 ]
    [ "$(grep -c . <<<"$stderr")" -eq 1 ]
    [[ "$stderr" == "slurm-pin: error: $parent "*"could put a directory of theirs in place of the work directory"*"--workdir"* ]]
    [ -z "$(ls -A "$parent")" ]
  done
  [ ! -e "$STORE/forged" ]
  # A sticky one (as /tmp) is fine: no other user can rename what root made there.
  chmod 1777 "$CLUSTER/open"
  run --separate-stderr "$SLURM_PIN" profile --mpi=mpich --app forged --ranks 2 --store "$STORE" \
    --workdir "$CLUSTER/open" -- /bin/true
  [[ "$stderr" != *"in place of the work directory"* ]]
  [ -z "$(ls -A "$CLUSTER/open")" ]
  node_is_idle
}

@test "4.6: an include loop through a glob: doctor reads each file once and ends at once" {
  mkdir -p "$WORK/loop.d"
  echo "include loop.d/*" >"$WORK/loop.conf"
  echo "include ../loop.conf" >"$WORK/loop.d/a.conf"
  echo "include *" >"$WORK/loop.d/b.conf"
  echo "required $PLUGIN store=$STORE" >"$WORK/loop.d/c.conf"
  timed timeout 20 "$SLURM_PIN" doctor --plugstack "$WORK/loop.conf"
  echo "doctor took ${elapsed}s" >&3
  [ "$status" -eq 1 ]
  [ "$(echo "$elapsed < 5" | bc)" -eq 1 ]
  [ "$(grep -c 'included a second time (an include loop?)' <<<"$output")" -eq 4 ]
  [ "${#lines[@]}" -lt 10 ]
}

@test "4.7: autopilot and evaluate, run by root in a user's directory, import no Python module from it" {
  as_user mkdir -p "$WORK/pytrap"
  for m in scipy matplotlib json re sys evaluate_report speedup_test autopilot; do
    printf 'open("%s/ran", "a").write("a user'"'"'s %s.py ran\\n")\n' "$WORK/pytrap" "$m" | as_user tee "$WORK/pytrap/$m.py" >/dev/null
  done
  # status stops at the policy (it has no explore rule), after its checks; --combine at the missing file.
  run bash -c "cd '$WORK/pytrap' && '$SLURM_PIN' autopilot status --policy '$CLUSTER/slurm-pin-policy.lua'"
  [ "$status" -ne 0 ]
  run bash -c "cd '$WORK/pytrap' && '$SLURM_PIN' evaluate --combine '$WORK/pytrap/none.json'"
  [ "$status" -ne 0 ]
  [ ! -e "$WORK/pytrap/ran" ] || { cat "$WORK/pytrap/ran"; false; }
}

@test "a placing helper killed from outside (the OOM killer, an admin) says so and what to do, not 'report it'" {
  regions_profile
  plugstack ""
  as_user srun -c2 --pin-strategy=lpgp --pin-profile="$WORK/regions.profile" --pin-phases --pin-oversubscribe \
    echo ran >"$WORK/killed.out" 2>&1 3>&- &
  local pid=
  for _ in $(seq 200); do  # the helper: slurmstepd's child, the job's user's
    pid=$(pgrep -U "$TEST_USER" -x slurmstepd | head -1)  # its real uid: slurmstepd only seteuid()s
    [ -n "$pid" ] && break
    sleep 0.05
  done
  [ -n "$pid" ]
  kill -KILL "$pid"
  wait || true
  cat "$WORK/killed.out"
  [[ "$(cat "$WORK/killed.out")" != *ran* ]]
  grep -q "slurm-pin: the placing helper was killed (signal 9: the kernel's OOM killer or the job's memory limit, or an admin): give the step more memory (--mem)" "$WORK/killed.out"
  ! grep -q "report it" "$WORK/killed.out" || false
  node_is_idle
}
