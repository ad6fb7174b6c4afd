// SPDX-License-Identifier: GPL-2.0-or-later
// The site's store, set once on the plugstack line (common/site_store.h):
// found through slurm.conf's PlugStackConfig or plugstack.conf beside it,
// through include lines, the first slurm_pin.so line counting; the
// environment before it and the default after.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "site_store.h"
#include "test_support.hh"

namespace {

namespace fs = std::filesystem;

struct Dir : slurmpin::test::TempDir {
  Dir() : TempDir("site_store") {}
};

std::string store_of(const std::string& plugstack, int* rc = nullptr) {
  char buf[4096];
  int r = site_store_from_plugstack(plugstack.c_str(), buf, sizeof buf);
  if (rc) *rc = r;
  return buf;
}

TEST(SiteStore, TheFirstSlurmPinLineGivesIt) {
  Dir d;
  std::string f = d.write("plugstack.conf",
                          "# site\n"
                          "optional /usr/lib/other.so store=/not/ours\n"
                          "required /usr/lib/x86_64-linux-gnu/slurm-wlm/slurm_pin.so default=compact store=/srv/profiles # x\n"
                          "required /usr/lib/slurm_pin.so store=/second\n");
  int rc = 0;
  EXPECT_EQ(store_of(f, &rc), "/srv/profiles");
  EXPECT_EQ(rc, 1);
  f = d.write("none.conf", "required slurm_pin.so default=compact\n");
  EXPECT_EQ(store_of(f, &rc), "");
  EXPECT_EQ(rc, 0);
  store_of((d.path / "missing.conf").string(), &rc);
  EXPECT_EQ(rc, -1);
}

TEST(SiteStore, IncludeLinesAreFollowed) {
  Dir d;
  d.write("plugstack.conf.d/10-other.conf", "optional /usr/lib/x.so\n");
  d.write("plugstack.conf.d/50-pin.conf", "required /usr/lib/slurm_pin.so store=/from/include\n");
  std::string f = d.write("plugstack.conf", "include " + (d.path / "plugstack.conf.d/*.conf").string() + "\n");
  EXPECT_EQ(store_of(f), "/from/include");
  f = d.write("relative.conf", "include plugstack.conf.d/*.conf\n");
  EXPECT_EQ(store_of(f), "/from/include");
  f = d.write("loop.conf", "include loop.conf\n");  // read once (plugstack_conf.h)
  EXPECT_EQ(store_of(f), "");
}

TEST(SiteStore, SlurmConfNamesThePlugstackAndTheEnvironmentComesFirst) {
  Dir d;
  std::string plug = d.write("elsewhere/pin.conf", "required /p/slurm_pin.so store=/site\n");
  std::string conf = d.write("slurm.conf", "ClusterName=c\n plugstackconfig = " + plug + "  # the site's\n");
  char buf[4096];
  site_plugstack_path(conf.c_str(), buf, sizeof buf);
  EXPECT_EQ(std::string(buf), plug);
  std::string bare = d.write("bare/slurm.conf", "ClusterName=c\n");
  site_plugstack_path(bare.c_str(), buf, sizeof buf);
  EXPECT_EQ(std::string(buf), (d.path / "bare/plugstack.conf").string());

  setenv("SLURM_CONF", conf.c_str(), 1);
  unsetenv("SLURM_PIN_STORE");
  EXPECT_STREQ(site_store_dir(buf, sizeof buf), "plugstack.conf");
  EXPECT_EQ(std::string(buf), "/site");
  setenv("SLURM_PIN_STORE", "/mine", 1);
  EXPECT_STREQ(site_store_dir(buf, sizeof buf), "SLURM_PIN_STORE");
  EXPECT_EQ(std::string(buf), "/mine");
  unsetenv("SLURM_PIN_STORE");
  setenv("SLURM_CONF", bare.c_str(), 1);
  EXPECT_STREQ(site_store_dir(buf, sizeof buf), "the default");
  EXPECT_EQ(std::string(buf), SITE_STORE_DEFAULT);
  unsetenv("SLURM_CONF");
}

TEST(SiteStore, ALineLongerThanAnySlurmLineIsSkippedWhole) {
  Dir d;
  std::string f = d.write("long.conf", std::string(70000, 'x') + " required /p/slurm_pin.so store=/fake\n" +
                                           "required /p/slurm_pin.so store=/real\n");
  EXPECT_EQ(store_of(f), "/real");
}

}  // namespace
