/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "env_action.h"

#include <stdio.h>

#include "preload_list.h"

int env_action_value(enum env_action action, const char *value, const char *current, char *out, size_t len) {
  int n;
  int has_current = current && *current;
  switch (action) {
    case ENV_UNSET: return -2;
    case ENV_KEEP: n = snprintf(out, len, "%s", current ? current : value); break;
    case ENV_APPEND_WORD:
      if (!has_current || preload_has_word(current, value) == 1) n = snprintf(out, len, "%s", has_current ? current : value);
      else n = snprintf(out, len, "%s %s", current, value);
      break;
    default: n = snprintf(out, len, "%s", value); break;
  }
  return n >= 0 && (size_t)n < len ? n : -1;
}
