// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing profiles (--pin-profile FILE, the store): parsed, and every
// matrix they hold turned into an affinity. Parsed a second time with the
// regions' rows left in the text until each is asked for (as the engine
// reads them, where each region is placed): the same matrices, or a fault.
#include <vector>

#include "fuzz_support.hh"
#include "sharing/profile.hh"

using namespace slurmpin;

namespace {

// Every matrix of a profile, the regions' in order, as affinities written
// out; throws the first fault.
std::string all_matrices(const Profile& p) {
  std::string out;
  auto add = [&](const SharingMatrix& m) {
    out += std::to_string(m.size()) + ":" + std::to_string(m.floor()) + ";";
    for (const Edge& e : m.edges())
      out += std::to_string(e.i) + "," + std::to_string(e.j) + "," + std::to_string(e.w) + " ";
    out += "\n";
  };
  if (p.has_thread_matrix()) add(p.affinity("simple", "", "fuzz"));
  for (const auto& r : p.regions)
    for (const char* model : {"simple", "rw"})
      if (r.matrices.count(model) || r.edges.count(model) || r.deferred.count(model)) add(p.affinity(model, r, "fuzz"));
  return out;
}

// The profile read whole, or with its regions' rows left in its text (the
// text's bytes dropped by the caller first: the profile keeps them), and
// every matrix then asked for; empty on a fault.
std::string read_then_asked(const std::string& text, bool leave_rows) {
  try {
    ProfileNeeds n;
    n.defer_region_rows = leave_rows;
    Profile p;
    {
      FileBytes bytes(text);
      p = parse_profile(bytes, "fuzz", n);
    }
    return "ok\n" + all_matrices(p);
  } catch (const Error&) {
    return "";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  expect_error_or_success([&] {
    Profile p = parse_profile(text, "fuzz");
    if (p.ranks) p.rank_traffic("fuzz");
    if (p.has_thread_matrix() || !p.ranks) p.affinity("simple", "", "fuzz");
    for (const auto& r : p.regions)
      for (const auto& m : r.matrices) p.affinity(m.first, r.name, "fuzz");
    parse_profile(format_profile(p), "again");
  });
  // Rows left until asked for: the same matrices, and a fault where a whole
  // read faults (found later, maybe another one first).
  if (read_then_asked(text, false) != read_then_asked(text, true)) __builtin_trap();
  // A rank section passed over (a job smaller than the profile) never
  // stops the rest from being read as it would be.
  ProfileNeeds small;
  small.max_ranks = 2;
  small.rank_model = "bytes";
  expect_error_or_success([&] {
    Profile p = parse_profile(text, "fuzz", small);
    if (p.ranks > 2 && (!p.rank_matrices.empty() || !p.rank_edges.empty())) __builtin_trap();
  });
  return 0;
}
