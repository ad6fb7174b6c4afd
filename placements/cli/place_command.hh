// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

namespace slurmpin {

// Runs `slurm-pin place ARGS`; throws Error on bad input.
int place_command(int argc, char** argv);

}  // namespace slurmpin
