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
#include <sys/stat.h>
#include <sys/types.h>

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

/* ---- --pin-profile: NAME or NAME@VERSION from the site's store
 * (STORE/APP/tT.vV.profile), or a file path (anything with a '/'). One rule
 * for every front end; its parts are exported for those that cannot call C
 * (the Lua policy's generated module). */
#define SP_PROFILE_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"
#define SP_PROFILE_NAME_MAX 128     /* bytes of NAME; it does not start with a dot */
#define SP_PROFILE_VERSION_DIGITS 6 /* VERSION: a positive number */
const char *sp_profile_name_chars(void);
int sp_profile_name_max(void);
int sp_profile_version_digits(void);

struct sp_profile_spec {
  int is_path; /* then the text is the path */
  char app[SP_PROFILE_NAME_MAX + 1];
  int version; /* 0: the newest */
};
int sp_profile_spec_of(const char *text, struct sp_profile_spec *out, char *err, size_t len); /* 0 or -1 */
/* 1 when `spec` is NAME or NAME@VERSION (not a path, well formed), else 0. */
int sp_is_profile_name(const char *spec);
/* NAME alone (bytes app[0..n-1]): 1 when valid, else 0. */
int sp_profile_app_valid(const char *app, size_t n);
/* A store entry's file name, "t8.v3.profile": 0 with its threads and
 * version, or -1 (lock and temporary files, anything else). */
int sp_store_entry_of(const char *name, int *threads, int *version);
/* Whether the store may be trusted with what `st` describes (a directory
 * or file of `kind`, S_IFDIR or S_IFREG, named `path`, the store's or one
 * of its entries, `what` saying which): root's or the store owner's
 * `owner`, writable by its owner alone. 0, or -1 with the refusal in err. */
int sp_store_trust(const char *what, const char *path, const struct stat *st, mode_t kind, uid_t owner, char *err,
                   size_t len);
/* The store directory for reading, opened once (the admin's path, links
 * followed) and trusted: its descriptor, and its owner in *owner (whom
 * its entries may belong to beside root); -1 with err set. */
int sp_store_open(const char *store, uid_t *owner, char *err, size_t len);
/* APP's directory in the open store, never through a symbolic link,
 * trusted as the store's entries: its descriptor; -1 when there is none
 * (nor a directory by that name), err ""; -2 with err set when there is one
 * that cannot be trusted. */
int sp_store_open_app(int store_fd, const char *store, const char *app, uid_t owner, char *err, size_t len);
/* srun's check of a store name, without the engine: the store and the
 * application's directory trusted, and a trusted entry of that version
 * (any, without @VERSION) there; only that directory is read, whatever
 * else the store holds. 0, or -1 with one line in err. A file path is the
 * engine's to read (sp_check_profile). */
int sp_check_store_profile(const char *spec, const char *store, char *err, size_t len);

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
/* The task's thread count in OMP_NUM_THREADS' value ("8", or "8,2" for
 * nested levels: the first level's), 1..65536; 0 for NULL or "" (from the
 * task's share); -1 with err. */
int sp_omp_num_threads_of(const char *value, char *err, size_t len);

enum { SP_GPU_CLOSEST, SP_GPU_NONE };
int sp_gpu_mode_of(const char *text, char *err, size_t len);

enum { SP_MEM_NONE, SP_MEM_LOCAL, SP_MEM_INTERLEAVE };
int sp_mem_policy_of(const char *text, char *err, size_t len);
const char *sp_mem_policy_name(int policy);

enum { SP_THREADS_ENV, SP_THREADS_PRELOAD, SP_THREADS_OMPT, SP_THREADS_AUTO };
int sp_thread_mode_of(const char *text, char *err, size_t len);
const char *sp_thread_mode_name(int mode);

#ifdef __cplusplus
}
#endif

#endif
