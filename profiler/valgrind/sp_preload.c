/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loaded by Valgrind into the profiled program (vgpreload_slurmpin): wraps
 * libgomp's GOMP_parallel (also exported by LLVM's libomp for GCC-built
 * programs) so that every parallel region of an unmodified GCC -fopenmp
 * binary is tagged by its outlined function, e.g. main._omp_fn.0; and
 * pthread_create, so that the profile says which routine each thread ran.
 */
#include <valgrind/valgrind.h>

#include "slurm_pin/regions.h"

#define WRAP_GOMP_PARALLEL(soname)                                                                  \
  void I_WRAP_SONAME_FNNAME_ZU(soname, GOMP_parallel)(void (*fn)(void *), void *data, unsigned n,    \
                                                      unsigned flags);                              \
  void I_WRAP_SONAME_FNNAME_ZU(soname, GOMP_parallel)(void (*fn)(void *), void *data, unsigned n,    \
                                                      unsigned flags) {                             \
    OrigFn orig;                                                                                    \
    VALGRIND_GET_ORIG_FN(orig);                                                                     \
    VALGRIND_DO_CLIENT_REQUEST_STMT(SLURM_PIN_USERREQ_REGION_BEGIN_CODE, fn, 0, 0, 0, 0);           \
    CALL_FN_v_WWWW(orig, fn, data, n, flags);                                                       \
    VALGRIND_DO_CLIENT_REQUEST_STMT(SLURM_PIN_USERREQ_REGION_END, 0, 0, 0, 0, 0);                   \
  }

WRAP_GOMP_PARALLEL(libgompZdsoZd1) /* libgomp.so.1 */
WRAP_GOMP_PARALLEL(libompZdsoZd5)  /* libomp.so.5 */

/* pthread_create@* in libc (glibc 2.34+) or libpthread (older). */
#define WRAP_PTHREAD_CREATE(soname)                                                                 \
  int I_WRAP_SONAME_FNNAME_ZZ(soname, pthreadZucreateZAZa)(void *th, const void *attr,              \
                                                           void *(*fn)(void *), void *arg);         \
  int I_WRAP_SONAME_FNNAME_ZZ(soname, pthreadZucreateZAZa)(void *th, const void *attr,              \
                                                           void *(*fn)(void *), void *arg) {        \
    OrigFn orig;                                                                                    \
    int rc;                                                                                         \
    VALGRIND_GET_ORIG_FN(orig);                                                                     \
    VALGRIND_DO_CLIENT_REQUEST_STMT(SLURM_PIN_USERREQ_THREAD_START, fn, 0, 0, 0, 0);                \
    CALL_FN_W_WWWW(rc, orig, th, attr, fn, arg);                                                    \
    return rc;                                                                                      \
  }

WRAP_PTHREAD_CREATE(libcZdsoZa)       /* libc.so* */
WRAP_PTHREAD_CREATE(libpthreadZdsoZa) /* libpthread.so* */
