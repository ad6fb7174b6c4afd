// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's forwarders when the engine cannot be loaded (built here with
// an engine name that exists nowhere): every call fails the way its C API
// documents, and says which library is missing and how to fix it, so a
// broken installation is one clear error, never a crash in slurmstepd.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "engine_link.h"
#include "slurm_pin_frontend.h"
}

namespace {

bool names_fix(const std::string& text) {
  return text.find("cannot load the placement engine libslurmpin-absent.so") != std::string::npos &&
         text.find("install the plugin's package (slurm-pin-spank) again") != std::string::npos;
}

}  // namespace

TEST(EngineLink, NothingIsLoadedUntilAsked) { EXPECT_STREQ(pin_engine_error(), ""); }

// Option values need no engine (slurm_pin_options.h): srun checks them
// without loading it, with the engine's own messages.
TEST(EngineLink, OptionValuesAreCheckedWithoutTheEngine) {
  char err[1024] = "";
  EXPECT_EQ(sp_check_strategy("compact", err, sizeof err), 0);
  EXPECT_EQ(sp_check_strategy("file:/p", err, sizeof err), 0);
  EXPECT_EQ(sp_strategy_needs_profile("lpgp"), 1);
  EXPECT_EQ(sp_strategy_needs_profile("compact"), 0);
  EXPECT_EQ(sp_check_strategy("packed", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("unknown strategy 'packed': use one of none|compact|"), std::string::npos) << err;
  EXPECT_EQ(sp_check_granularity("l3", err, sizeof err), 0);
  EXPECT_EQ(sp_check_smt("65", err, sizeof err), -1);
  EXPECT_EQ(sp_check_gpu_mode("closest", err, sizeof err), 0);
  EXPECT_EQ(sp_check_mem_policy("interleave", err, sizeof err), 0);
  EXPECT_EQ(sp_check_thread_mode("ompt", err, sizeof err), 0);
  EXPECT_EQ(sp_is_profile_name("app@2"), 1);
  EXPECT_EQ(sp_check_store_profile("app", "/nonexistent-store", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("profile store /nonexistent-store does not exist"), std::string::npos) << err;
  EXPECT_STREQ(pin_engine_error(), "");  // none of it loaded the engine
}

TEST(EngineLink, AMissingEngineIsOneClearError) {
  char err[1024] = "";
  EXPECT_EQ(pin_engine_load(err, sizeof err), -1);
  EXPECT_TRUE(names_fix(err)) << err;
  EXPECT_TRUE(names_fix(pin_engine_error()));
}

TEST(EngineLink, EveryCallFailsAsItsApiSays) {
  char err[1024] = "";
  EXPECT_EQ(sp_init(), nullptr);
  EXPECT_TRUE(names_fix(sp_error(nullptr)));
  sp_finalize(nullptr);  // nothing to free, nothing loaded
  EXPECT_EQ(sp_check_profile("./app.profile", "/store", err, sizeof err), -1);
  EXPECT_TRUE(names_fix(err)) << err;
  EXPECT_EQ(sp_save_topology("/tmp/x.xml", err, sizeof err), -1);
  EXPECT_EQ(sp_job_gpu_variable_names()[0], nullptr);
  EXPECT_TRUE(names_fix(sp_strategies_help()));
}

// The generated forwarders (gen_forwarders.awk) cover what the plugin
// calls, with each return type's failure: one of each kind, and hwloc's CPU
// list printer, which comes with the engine.
TEST(EngineLink, GeneratedForwardersFailByTheirType) {
  char buf[64], err[1024] = "";
  EXPECT_EQ(sp_get_ntasks(nullptr), -1);
  EXPECT_EQ(sp_get_task_cpuset(nullptr, 0), nullptr);
  EXPECT_EQ(sp_set_job_gpus(nullptr, "0"), -1);
  EXPECT_EQ(hwloc_bitmap_list_snprintf(buf, sizeof buf, nullptr), -1);
  EXPECT_EQ(sp_find_thread_library("/x/slurm_pin.so", buf, sizeof buf, err, sizeof err), -1);
  EXPECT_TRUE(names_fix(err)) << err;
}
