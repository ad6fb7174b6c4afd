// SPDX-License-Identifier: GPL-2.0-or-later
// One exception type for every user-facing failure: its message is the
// one-line error the CLI and the plugin print (problem, then the fix).
#pragma once
#include <stdexcept>
#include <string>

namespace slurmpin {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The command line itself is wrong (an unknown option, a missing value or
// argument): the commands exit with status 2 for it, 1 for every other error.
struct UsageError : Error {
  using Error::Error;
};

}  // namespace slurmpin
