/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loaded by Valgrind into the profiled program (vgpreload_slurmpin): wraps
 * libgomp's GOMP_parallel (also exported by LLVM's libomp for GCC-built
 * programs) so that every parallel region of an unmodified GCC -fopenmp
 * binary is tagged by its outlined function, e.g. main._omp_fn.0.
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
