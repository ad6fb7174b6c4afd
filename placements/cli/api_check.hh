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

// get(buf, len) returns the length needed, or -1 (the API's convention):
// the text, or p's error.
template <typename F>
std::string text_of(const sp_placement_t* p, F&& get) {
  int n = get(nullptr, 0);
  if (n < 0) throw Error(*sp_error(p) ? sp_error(p) : "the placement has no such output");
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  get(buf.data(), buf.size());
  return std::string(buf.data(), static_cast<size_t>(n));
}

inline std::string note(const sp_placement_t* p, int i) {
  return text_of(p, [&](char* b, size_t l) { return sp_get_note(p, i, b, l); });
}

}  // namespace slurmpin
