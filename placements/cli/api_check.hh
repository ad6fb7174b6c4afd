// SPDX-License-Identifier: GPL-2.0-or-later
// The commands call the engine through its C API, as the plugin does: a
// failed call becomes the command's one-line error, and a text output (a
// CPU list, a note, a file) is asked its length, then read.
#pragma once
#include <string>
#include <vector>

#include "error.hh"
#include "slurm_pin_frontend.h"

namespace slurmpin {

inline void check(const sp_placement_t* p, int rc) {
  if (rc < 0) throw Error(sp_error(p));
}

// get(buf, len) returns the length needed, or below 0 (the API's
// convention): the API's result, with the text in `out` when there is one.
// One call when the text fits a small buffer, a second when it is longer.
template <typename F>
int text_into(F&& get, std::string& out) {
  char small[512];
  int n = get(small, sizeof small);
  if (n < 0) return n;
  if (static_cast<size_t>(n) < sizeof small) return out.assign(small, static_cast<size_t>(n)), n;
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  if ((n = get(buf.data(), buf.size())) < 0) return n;
  out.assign(buf.data(), static_cast<size_t>(n));
  return n;
}

// The text, or p's error.
template <typename F>
std::string text_of(const sp_placement_t* p, F&& get) {
  std::string out;
  if (text_into(get, out) < 0) throw Error(*sp_error(p) ? sp_error(p) : "the placement has no such output");
  return out;
}

// A CPU set of the placement as a list ("0-3,8"); "" for none.
inline std::string cpu_list(hwloc_const_bitmap_t set) {
  std::string out;
  if (set) text_into([&](char* b, size_t l) { return hwloc_bitmap_list_snprintf(b, l, set); }, out);
  return out;
}

inline std::string note(const sp_placement_t* p, int i) {
  return text_of(p, [&](char* b, size_t l) { return sp_get_note(p, i, b, l); });
}

}  // namespace slurmpin
