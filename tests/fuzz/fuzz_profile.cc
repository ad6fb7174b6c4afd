// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing profiles (--pin-profile FILE, the store): parsed, and every
// matrix they hold turned into an affinity. Parsed a second time with the
// matrices' rows read after the scan (as the engine reads them, on its
// threads; here last matrix first): the same profile or the same error.
#include <functional>
#include <vector>

#include "fuzz_support.hh"
#include "sharing/profile.hh"

using namespace slurmpin;

namespace {

// The outcome of a parse: the profile as written again, or its error.
std::string outcome(const std::string& text, const ProfileNeeds& needs) {
  try {
    return format_profile(parse_profile(text, "fuzz", needs));
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

ProfileNeeds rows_read_last_first() {
  ProfileNeeds n;
  n.for_each = [](size_t count, const std::function<void(size_t)>& f) {
    std::vector<std::string> faults(count);
    for (size_t i = count; i-- > 0;) {
      try {
        f(i);
      } catch (const Error& e) {
        faults[i] = e.what();
      }
    }
    for (const std::string& e : faults)
      if (!e.empty()) throw Error(e);
  };
  return n;
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
  if (outcome(text, ProfileNeeds()) != outcome(text, rows_read_last_first())) __builtin_trap();
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
