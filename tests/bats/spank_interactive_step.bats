#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# salloc's interactive step (LaunchParameters=use_interactive_step) is a
# shell for the user, not an application step: slurm-pin leaves it alone,
# even with a site default, so nothing leaks into the steps it launches.
#
# The site's InteractiveStepOptions here drop --pty: the shell then reads
# salloc's stdin, so the test needs no terminal. (Feeding a --pty shell
# through script(1) raced with the terminal set-up on a slower machine.)
# The plugin decides by the step id, which is the same either way.

load slurm_helpers

setup_file() {
  export SLURM_PIN_EXTRA_CONF='LaunchParameters=use_interactive_step
InteractiveStepOptions="--interactive --preserve-env --mpi=none /bin/bash"'
  slurm_up task/none default=compact
}
teardown_file() { slurm_down; }

@test "the interactive step is not pinned; a step launched from it is" {
  set_plugstack default=compact
  input='echo "shell places=[$OMP_PLACES] step=$SLURM_STEP_ID"; srun -n1 env | grep ^OMP_PLACES=; exit'
  run as_user bash -c "echo '$input' | timeout 60 salloc -n1"
  echo "$output"
  # SLURM_INTERACTIVE_STEP, unpinned: Slurm 26.05 writes it signed.
  [[ "$output" == *"shell places=[] step=4294967290"* || "$output" == *"shell places=[] step=-6"* ]]
  [[ "$output" == *"OMP_PLACES={0}"* ]]                    # its srun steps are pinned
}
