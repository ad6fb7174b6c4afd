/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stderr_line.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void stderr_line(const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  if ((size_t)n >= sizeof line) memcpy(line + sizeof line - 5, "...\n", 4), len = sizeof line - 1;
  if (len == 0 || line[len - 1] != '\n') {
    if (len == sizeof line - 1) len--;
    line[len++] = '\n';
  }
  for (size_t at = 0; at < len;) {
    ssize_t w = write(STDERR_FILENO, line + at, len - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    at += (size_t)w;
  }
}
