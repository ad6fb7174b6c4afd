// SPDX-License-Identifier: GPL-2.0-or-later
// A text output of the C API (caller's buffer, length returned), as a
// string: what a test compares. "(error N)" when the call failed with N.
#pragma once
#include <string>
#include <vector>

template <typename F>
std::string api_text(F&& get) {
  int n = get(nullptr, 0);
  if (n < 0) return "(error " + std::to_string(n) + ")";
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  get(buf.data(), buf.size());
  return std::string(buf.data(), static_cast<size_t>(n));
}
