#!/usr/bin/env bats
# salloc's interactive step (LaunchParameters=use_interactive_step) is a
# shell for the user, not an application step: slurm-pin leaves it alone,
# even with a site default, so nothing leaks into the steps it launches.

load slurm_helpers

setup_file() {
  export SLURM_PIN_EXTRA_CONF="LaunchParameters=use_interactive_step"
  slurm_up task/none default=compact
}
teardown_file() { slurm_down; }

@test "the interactive step is not pinned; a step launched from it is" {
  set_plugstack default=compact
  # The interactive step wants a terminal: script(1) gives it one.
  input='echo "shell places=[$OMP_PLACES] step=$SLURM_STEP_ID"; srun -n1 env | grep ^OMP_PLACES=; exit'
  run as_user bash -c "echo '$input' | timeout 60 script -qec 'salloc -n1' /dev/null"
  [[ "$output" == *"shell places=[] step=4294967290"* ]]   # SLURM_INTERACTIVE_STEP, unpinned
  [[ "$output" == *"OMP_PLACES={0}"* ]]                    # its srun steps are pinned
}
