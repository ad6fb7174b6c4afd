/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Marking parallel regions for the slurm-pin profiler. Costs nothing when the
 * program runs natively or under another tool.
 *
 *   SLURM_PIN_REGION_BEGIN_CODE(addr)  region identified by a code address
 *                                      (the outlined function, or OMPT's
 *                                      codeptr_ra): named from its symbol
 *   SLURM_PIN_REGION_BEGIN_NAME(name)  region with an explicit name
 *   SLURM_PIN_REGION_END()             back to serial code
 *
 * Under the valgrind backend these are Valgrind client requests. Under the
 * compiler backend the runtime defines slurm_pin_region_begin/end, which the
 * weak references below reach.
 */
#ifndef SLURM_PIN_REGIONS_H
#define SLURM_PIN_REGIONS_H

#include <valgrind/valgrind.h>

#define SLURM_PIN_USERREQ_BASE VG_USERREQ_TOOL_BASE('S', 'P')
enum {
  SLURM_PIN_USERREQ_REGION_BEGIN_CODE = SLURM_PIN_USERREQ_BASE,
  SLURM_PIN_USERREQ_REGION_BEGIN_NAME,
  SLURM_PIN_USERREQ_REGION_END,
  /* The start routine of the thread the caller is about to create (the
   * Valgrind backend's pthread_create wrapper; not for programs). */
  SLURM_PIN_USERREQ_THREAD_START,
};

#ifdef __cplusplus
extern "C" {
#endif
void slurm_pin_region_begin(const void *code, const char *name) __attribute__((weak));
void slurm_pin_region_end(void) __attribute__((weak));
#ifdef __cplusplus
}
#endif

#define SLURM_PIN_REGION_BEGIN_CODE(addr)                                                       \
  do {                                                                                           \
    VALGRIND_DO_CLIENT_REQUEST_STMT(SLURM_PIN_USERREQ_REGION_BEGIN_CODE, (addr), 0, 0, 0, 0);    \
    if (slurm_pin_region_begin) slurm_pin_region_begin((const void *)(addr), 0);                 \
  } while (0)

#define SLURM_PIN_REGION_BEGIN_NAME(name)                                                       \
  do {                                                                                           \
    VALGRIND_DO_CLIENT_REQUEST_STMT(SLURM_PIN_USERREQ_REGION_BEGIN_NAME, (name), 0, 0, 0, 0);    \
    if (slurm_pin_region_begin) slurm_pin_region_begin(0, (name));                               \
  } while (0)

#define SLURM_PIN_REGION_END()                                                                  \
  do {                                                                                           \
    VALGRIND_DO_CLIENT_REQUEST_STMT(SLURM_PIN_USERREQ_REGION_END, 0, 0, 0, 0, 0);                \
    if (slurm_pin_region_end) slurm_pin_region_end();                                            \
  } while (0)

#endif
