/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data only the kernel touches for the program: the main thread read()s four
 * lines from /dev/zero into a buffer (no instruction of the program writes
 * them), a second thread then reads them. Prints the buffer's first line
 * number. A profiler blind to kernel copies sees no sharing at all.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static _Alignas(64) volatile char buffer[4 * 64];

static void *reader(void *unused) {
  (void)unused;
  long sum = 0;
  for (int i = 0; i < 4 * 64; i += 64) sum += buffer[i];
  return (void *)(intptr_t)sum;
}

int main(void) {
  int fd = open("/dev/zero", O_RDONLY);
  if (fd < 0 || read(fd, (char *)buffer, sizeof buffer) != (ssize_t)sizeof buffer) return 1;
  close(fd);
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  pthread_join(t, NULL);
  printf("%lu\n", (unsigned long)((uintptr_t)buffer / 64));
  return 0;
}
