/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes slurm_pin_strategies.lua from the placement engine's one list of
 * strategies (sp_strategy_name), at build time: the Lua policy never keeps
 * a list of its own. */
#include <stdio.h>
#include <string.h>

#include "slurm_pin/placement.h"

int main(void) {
  printf("-- SPDX-License-Identifier: GPL-2.0-or-later\n"
         "-- Generated at build time from the placement engine's list of strategies\n"
         "-- (lua/gen_strategies.c): do not edit.\n"
         "return {\n  names = {");
  for (int i = 0; i < sp_strategy_count(); ++i)
    if (strncmp(sp_strategy_name(i), "file:", 5) != 0) printf(" \"%s\",", sp_strategy_name(i));
  printf(" },\n  needs_profile = {");
  for (int i = 0; i < sp_strategy_count(); ++i)
    if (sp_strategy_needs_profile(sp_strategy_name(i)) == 1) printf(" [\"%s\"] = true,", sp_strategy_name(i));
  printf(" },\n}\n");
  return ferror(stdout) ? 1 : 0;
}
