/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program that handles its own faults and resumes, as a garbage
 * collector's write barrier or a JVM's null checks do: each round makes a
 * page read-only, then counts a call (in memory) and stores to the page;
 * the store faults, the handler makes the page writable and returns, and
 * the store runs again. Should the fault reach the handler with a stale
 * instruction pointer, the resumed code would count the call again.
 * Prints "calls N faults M"; exits 0 when both are the rounds' number.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { ROUNDS = 1000 };

static char *page;
static long page_size;
static long calls;
static volatile sig_atomic_t faults;

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)sig, (void)context;
  char *at = info->si_addr;
  if (at < page || at >= page + page_size) _exit(3);
  mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE);
  faults++;
}

static __attribute__((noinline)) void call(long i) {
  calls++;
  ((volatile long *)page)[i % 64] = i;
}

int main(void) {
  page_size = sysconf(_SC_PAGESIZE);
  page = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  if (sigaction(SIGSEGV, &sa, NULL)) return 2;
  for (long i = 0; i < ROUNDS; ++i) {
    mprotect(page, (size_t)page_size, PROT_READ);
    call(i);
  }
  printf("calls %ld faults %ld\n", calls, (long)faults);
  return calls == ROUNDS && faults == ROUNDS ? 0 : 1;
}
