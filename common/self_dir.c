/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "self_dir.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int self_dir(char *buf, size_t len) {
  if (len < 2) return errno = ENAMETOOLONG, -1;
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n < 0) return -1;
  if ((size_t)n >= len - 1) return errno = ENAMETOOLONG, -1; /* possibly cut */
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash) return errno = ENOENT, -1;
  *(slash == buf ? slash + 1 : slash) = '\0';
  return 0;
}
