/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The values of slurm-pin's options (strategy, granularity, smt, GPU mode,
 * memory policy, thread binding): their names and their one-line errors,
 * in plain C with nothing but libc. srun checks every --pin-* value it is
 * given, and loading the engine for that (its C++ runtime alone is most of
 * a millisecond, bench/srun) would cost every such job; the engine parses
 * the same values through these functions, so there is one list of names
 * and one message per mistake.
 *
 * The sp_check_* functions return 0, or -1 with a one-line message in
 * err[len] (cut to fit); the sp_*_of functions return the value's index
 * (below) or -1 the same way. A user's text in a message is cut to 64
 * bytes, with every byte outside printable ASCII written as \xNN.
 */
#ifndef SLURM_PIN_OPTIONS_H
#define SLURM_PIN_OPTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks without computing, for early errors (srun, sbatch). */
int sp_check_strategy(const char *name, char *err, size_t len); /* a name, or file:PATH */
int sp_check_granularity(const char *granularity, char *err, size_t len);
int sp_check_smt(const char *k, char *err, size_t len); /* "1".."64" */
int sp_check_gpu_mode(const char *mode, char *err, size_t len); /* closest|none */
int sp_check_mem_policy(const char *policy, char *err, size_t len);
int sp_check_thread_mode(const char *mode, char *err, size_t len);

/* 1 when `name` (or file:PATH) needs a sharing profile, else 0 (also when
 * it is no strategy: sp_check_strategy says why). */
int sp_strategy_needs_profile(const char *name);

/* ---- the lists, in order (the engine's enumerations follow them) */

/* The strategies: none, compact, scatter, random, lp-compact, lp-scatter,
 * gp, lpgp, gplp, then "file:PATH" (file:PATH names the last). */
struct sp_strategy_row {
  const char *name;
  int needs_profile;
  const char *help; /* one line, for --pin-strategy=help */
};
int sp_strategy_rows(void);
const struct sp_strategy_row *sp_strategy_row(int i); /* NULL outside 0..sp_strategy_rows()-1 */
int sp_strategy_of(const char *text, char *err, size_t len);

enum { SP_GRANULARITY_PU, SP_GRANULARITY_CORE, SP_GRANULARITY_L2, SP_GRANULARITY_L3, SP_GRANULARITY_NUMA };
int sp_granularity_of(const char *text, char *err, size_t len);

#define SP_MAX_SMT 64
int sp_smt_of(const char *text, char *err, size_t len); /* K itself, 1..SP_MAX_SMT */

enum { SP_GPU_CLOSEST, SP_GPU_NONE };
int sp_gpu_mode_of(const char *text, char *err, size_t len);

enum { SP_MEM_NONE, SP_MEM_LOCAL, SP_MEM_INTERLEAVE };
int sp_mem_policy_of(const char *text, char *err, size_t len);
const char *sp_mem_policy_name(int policy);

enum { SP_THREADS_ENV, SP_THREADS_PRELOAD, SP_THREADS_OMPT };
int sp_thread_mode_of(const char *text, char *err, size_t len);
const char *sp_thread_mode_name(int mode);

#ifdef __cplusplus
}
#endif

#endif
