/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "option_text.h"

#include <stdarg.h>
#include <stdio.h>

const char *option_text_shown(const char *text, size_t n, size_t max, char *buf, size_t len) {
  size_t at = 0, i = 0;
  for (; i < n && i < max && at + 5 < len; ++i) {
    unsigned char c = (unsigned char)text[i];
    at += (size_t)snprintf(buf + at, len - at, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
  }
  snprintf(buf + at, len - at, "%s", i < n ? "..." : "");
  return buf;
}

int option_text_fail(char *err, size_t len, const char *fmt, ...) {
  if (err && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
  }
  return -1;
}
