/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "policy_yield.h"

#include <stdio.h>

void policy_yield_note(char *out, size_t len, const char *rule, const char *profile, const char *why,
                       const char *instead) {
  snprintf(out, len, "policy rule %s: profile %.200s does not fit this step (%.600s): placed %s without it", rule,
           profile, why, instead);
}

void policy_enforced_error(char *out, size_t len, const char *rule, const char *what, const char *why) {
  snprintf(out, len, "the site policy's enforced rule %s cannot apply to this %s: %.800s", rule, what, why);
}
