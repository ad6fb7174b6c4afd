// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

namespace slurmpin {

// Runs `slurm-pin run ARGS -- PROGRAM ARGS`: binds this process and execs
// the program; returns only on error (throws Error or UsageError).
int run_command(int argc, char** argv);

}  // namespace slurmpin
