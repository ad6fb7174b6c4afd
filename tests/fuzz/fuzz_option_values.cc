// SPDX-License-Identifier: GPL-2.0-or-later
// Option values as srun checks them without the engine
// (placements/options): every check answers within its buffer, a refusal's
// message is one printable line whatever the user wrote, and the checks
// agree with the lookups they summarise.
#include <cstring>

#include "fuzz_support.hh"
#include "slurm_pin_options.h"

namespace {

// One line of printable ASCII: the user's bytes were escaped.
void check_message(const char* err, size_t len) {
  size_t n = strnlen(err, len);
  if (n == len) __builtin_trap();  // always terminated
  for (size_t i = 0; i < n; ++i)
    if (err[i] < 0x20 || err[i] >= 0x7f) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  text = text.substr(0, std::strlen(text.c_str()));
  const char* v = text.c_str();
  // A small buffer too: messages are cut, never overrun.
  for (size_t len : {size_t(512), size_t(7)}) {
    char err[512];
    std::memset(err, 'x', sizeof err);
    int (*checks[])(const char*, char*, size_t) = {sp_check_strategy, sp_check_granularity, sp_check_smt,
                                                   sp_check_gpu_mode, sp_check_mem_policy, sp_check_thread_mode};
    for (auto check : checks) {
      err[0] = '\0';
      if (check(v, err, len) != 0) check_message(err, len);
    }
    sp_profile_spec spec;
    err[0] = '\0';
    int rc = sp_profile_spec_of(v, &spec, err, len);
    if (rc != 0) check_message(err, len);
    if (sp_is_profile_name(v) != (rc == 0 && !spec.is_path)) __builtin_trap();
    if (rc == 0 && !spec.is_path && !sp_profile_app_valid(spec.app, std::strlen(spec.app))) __builtin_trap();
  }
  int i = sp_strategy_of(v, nullptr, 0);
  if (i >= 0 && sp_strategy_needs_profile(v) != sp_strategy_row(i)->needs_profile) __builtin_trap();
  int k = sp_smt_of(v, nullptr, 0);
  if (k != -1 && (k < 1 || k > SP_MAX_SMT)) __builtin_trap();
  int threads, version;
  if (sp_store_entry_of(v, &threads, &version) == 0 && (threads < 1 || version < 1)) __builtin_trap();
  return 0;
}
