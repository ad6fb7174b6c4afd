// SPDX-License-Identifier: GPL-2.0-or-later
// Standard error closed to libraries while the engine reads a user's file:
// hwloc 2.15's XML importer prints its own line for a malformed file, which
// the command then explains in one line of its own (every error of the C
// API is one line: the problem, then the fix). While one is alive, fd 2
// goes to /dev/null; destroyed, it is back. Only commands use it, never the
// engine: a library does not touch its caller's descriptors.
#pragma once

namespace slurmpin {

class QuietStderr {
 public:
  QuietStderr();
  ~QuietStderr();
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace slurmpin
