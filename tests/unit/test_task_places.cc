// SPDX-License-Identifier: GPL-2.0-or-later
// The thread runtime's view of its task (runtime/task_places.h): any number
// of places and regions, from the task file or SLURM_PIN_CPUS.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <string>

extern "C" {
#include "task_places.h"
}

namespace {

std::string cpus_of(const cpu_place& p) {
  std::string out;
  for (int c = 0; c < static_cast<int>(p.size) * 8; ++c)
    if (CPU_ISSET_S(c, p.size, p.set)) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

}  // namespace

TEST(TaskPlaces, ParsesPlacesAndRegionsWithoutLimits) {
  std::string text = "slurm-pin-task 1\nplaces 0,8 4 1-3 65535\n";
  for (int r = 0; r < 5000; ++r) text += "region r" + std::to_string(r) + " 1 0\n";
  task_places t;
  char err[256];
  ASSERT_EQ(task_places_parse(text.data(), text.size(), &t, err, sizeof err), 0) << err;
  ASSERT_EQ(t.count, 4u);
  EXPECT_EQ(cpus_of(t.places[0]), "0,8");
  EXPECT_EQ(cpus_of(t.places[2]), "1,2,3");
  EXPECT_EQ(cpus_of(t.places[3]), "65535");
  ASSERT_EQ(t.nregions, 5000u);
  EXPECT_STREQ(t.regions[4999].name, "r4999");
  EXPECT_EQ(cpus_of(t.regions[4999].places[1]), "0");
  task_places_free(&t);
  std::string many = "slurm-pin-task 1\nplaces";
  for (int i = 0; i < 20000; ++i) many += " " + std::to_string(i % 64);
  many += "\n";
  ASSERT_EQ(task_places_parse(many.data(), many.size(), &t, err, sizeof err), 0) << err;
  EXPECT_EQ(t.count, 20000u);  // more places than the old 4096
  task_places_free(&t);
}

TEST(TaskPlaces, RefusesWhatIsNotATaskFile) {
  task_places t;
  char err[256];
  for (const std::string bad : {"places 0\n", "slurm-pin-task 2\nplaces 0\n", "slurm-pin-task 1\nplaces 0-\n",
                                "slurm-pin-task 1\nplaces 3-1\n", "slurm-pin-task 1\nplaces 65536\n",
                                "slurm-pin-task 1\nregion nameonly\n", "slurm-pin-task 1\ncolour blue\n",
                                "slurm-pin-task 1\nplaces 0  1\n"})
    EXPECT_EQ(task_places_parse(bad.data(), bad.size(), &t, err, sizeof err), -1) << bad;
}

TEST(TaskPlaces, FromTheEnvironmentWithoutATaskFile) {
  unsetenv("SLURM_PIN_TASK_FILE");
  setenv("SLURM_PIN_CPUS", "1 0,1", 1);
  task_places t;
  char err[256];
  ASSERT_EQ(task_places_load(&t, err, sizeof err), 0) << err;
  ASSERT_EQ(t.count, 2u);
  EXPECT_EQ(cpus_of(t.places[1]), "0,1");
  task_places_free(&t);
  setenv("SLURM_PIN_TASK_FILE", "/nonexistent/task0", 1);
  EXPECT_EQ(task_places_load(&t, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("/nonexistent/task0"), std::string::npos);
  unsetenv("SLURM_PIN_TASK_FILE");
  unsetenv("SLURM_PIN_CPUS");
}
