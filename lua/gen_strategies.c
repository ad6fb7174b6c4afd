/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes slurm_pin_strategies.lua from the placement engine's one list of
 * strategies (sp_strategy_name) and its rule for store profile names, at
 * build time: the Lua policy keeps neither of its own. */
#include <stdio.h>
#include <string.h>

#include "slurm_pin_frontend.h"

/* argv[1]: where the packages install slurm_pin_io.so (per Lua version). */
int main(int argc, char **argv) {
  printf("-- SPDX-License-Identifier: GPL-2.0-or-later\n"
         "-- Generated at build time from the placement engine's list of strategies\n"
         "-- and its rule for profile names\n"
         "-- (lua/gen_strategies.c): do not edit.\n"
         "return {\n  names = {");
  char name[64];
  for (int i = 0; i < sp_strategy_count(); ++i)
    if (sp_strategy_name(i, name, sizeof name) > 0 && strncmp(name, "file:", 5) != 0) printf(" \"%s\",", name);
  printf(" },\n  needs_profile = {");
  for (int i = 0; i < sp_strategy_count(); ++i)
    if (sp_strategy_name(i, name, sizeof name) > 0 && sp_strategy_needs_profile(name) == 1)
      printf(" [\"%s\"] = true,", name);
  printf(" },\n  profile_name = { chars = \"%s\", max = %d, version_digits = %d },\n",
         sp_profile_name_chars(), sp_profile_name_max(), sp_profile_version_digits());
  printf("  io_module_dirs = {");
  for (int i = 1; i < argc; ++i) printf(" \"%s\",", argv[i]);
  printf(" },\n}\n");
  return ferror(stdout) ? 1 : 0;
}
