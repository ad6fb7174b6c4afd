// SPDX-License-Identifier: GPL-2.0-or-later
// Shared by the harnesses: the input as a string, and the one rule every
// parser of user input keeps: it either succeeds or throws slurmpin::Error
// (a one-line message). Any other exception, a crash, a leak or undefined
// behaviour is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "error.hh"

inline std::string input_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

template <typename F>
void expect_error_or_success(F&& f) {
  try {
    f();
  } catch (const slurmpin::Error& e) {
    std::string m = e.what();
    if (m.empty()) __builtin_trap();  // every error says something
  }
}
