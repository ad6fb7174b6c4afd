// SPDX-License-Identifier: GPL-2.0-or-later
// The commands call the engine through its C API, as the plugin does: a
// failed call becomes the command's one-line error.
#pragma once
#include "error.hh"
#include "slurm_pin/slurm_pin.h"

namespace slurmpin {

inline void check(sp_placement_t* p, int rc) {
  if (rc < 0) throw Error(sp_error(p));
}

}  // namespace slurmpin
