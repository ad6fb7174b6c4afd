// SPDX-License-Identifier: GPL-2.0-or-later
// A text output of the C API (caller's buffer, length returned), as a
// string: what a test compares. "(error N)" when the call failed with N.
#pragma once
#include <string>
#include <vector>

#include <hwloc.h>

template <typename F>
std::string api_text(F&& get) {
  int n = get(nullptr, 0);
  if (n < 0) return "(error " + std::to_string(n) + ")";
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  get(buf.data(), buf.size());
  return std::string(buf.data(), static_cast<size_t>(n));
}

// A CPU set as its list ("0-3,8"), "(none)" for NULL.
inline std::string cpu_list(hwloc_const_bitmap_t set) {
  if (!set) return "(none)";
  return api_text([&](char* b, size_t l) { return hwloc_bitmap_list_snprintf(b, l, set); });
}
