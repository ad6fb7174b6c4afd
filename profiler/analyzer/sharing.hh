// SPDX-License-Identifier: GPL-2.0-or-later
// From a run's sharing sums to a profile: the simple-model matrix (seed 001
// eq. 5.1), the read/write model (eq. 6.1), both per parallel region too,
// the working sets (section 5.2.3.1) and the data reuse ratio (5.2.3.2),
// and what the user should know about them (warnings).
#pragma once
#include <string>
#include <vector>

#include "sharing/profile.hh"
#include "sums.hh"
#include "trace.hh"

namespace slurmpin {

struct AnalysisInput {
  int threads = 0;  // what the program was asked to run with (OMP_NUM_THREADS); 0: not said
  // The whole-run matrix leaves the serial part out when the run has
  // parallel regions (the main thread's set-up would hide who shares with
  // whom in the parallel part).
  bool exclude_serial = true;
  std::string application, binary_sha256, tool, date, topology;
};

struct Analysis {
  Profile profile;
  bool serial_excluded = false;
  std::vector<std::string> warnings;  // one line each, for the user
};

Analysis analyze_sums(const Sums& s, const AnalysisInput& in);
// A raw trace, summed by the backends' own code first.
Profile analyze(const Trace& t, const AnalysisInput& in);

// DRR in percent and its class ("no" < 1% <= "medium" < 4% <= "good").
std::string drr_class(double drr);

}  // namespace slurmpin
