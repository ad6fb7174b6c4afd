/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "task_file.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int task_file_create(const char *data, size_t size, char *path, size_t len) {
  int fd = memfd_create("slurm-pin-task", 0); /* no MFD_CLOEXEC: the program reads it after exec */
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      close(fd);
      errno = e;
      return -1;
    }
    done += (size_t)n;
  }
  if (snprintf(path, len, "/proc/self/fd/%d", fd) >= (int)len) {
    close(fd);
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}
