// SPDX-License-Identifier: GPL-2.0-or-later
// From raw records to a profile: the simple-model matrix (seed 001 eq. 5.1),
// the read/write model (eq. 6.1), both per parallel region too, the working
// sets (section 5.2.3.1) and the data reuse ratio (5.2.3.2).
#pragma once
#include <string>

#include "profile.hh"
#include "trace.hh"

namespace slurmpin {

struct AnalysisInput {
  int threads = 0;  // keep the first N threads (creation order); 0: all
  std::string application, binary_sha256, tool, date, topology;
};

Profile analyze(const Trace& t, const AnalysisInput& in);

// DRR in percent and its class ("no" < 1% <= "medium" < 4% <= "good").
std::string drr_class(double drr);

}  // namespace slurmpin
