/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugstack.conf read as Slurm reads it: each line's words, comments (from
 * '#') left out, and the files an `include PATTERN` line names (a glob,
 * relative to the including file) read in its place. The one reader of the
 * doctor (slurm-pin-plugstack-check) and of the policy's store lookup
 * inside slurmctld (site_store.c).
 *
 * Its cost is bounded by these limits, never by what the files say: an
 * include loop (through a glob, say) reads each file once, and a tree of
 * includes at most PLUGSTACK_MAX_FILES files of PLUGSTACK_MAX_LINES lines in
 * all. Each file is opened once, non-blocking, and must be a regular file
 * (a FIFO never stalls the reader). Plain C, libc only.
 */
#ifndef SLURM_PIN_PLUGSTACK_CONF_H
#define SLURM_PIN_PLUGSTACK_CONF_H

#define PLUGSTACK_MAX_DEPTH 8        /* include inside include ... */
#define PLUGSTACK_MAX_FILES 64       /* files read in all, the first among them */
#define PLUGSTACK_MAX_LINES 100000   /* lines read in all */
#define PLUGSTACK_MAX_LINE 65536     /* longer lines are reported, not parsed */
#define PLUGSTACK_MAX_ARGS 128       /* words on one line after the first two */

#ifdef __cplusplus
extern "C" {
#endif

/* One line with words (include lines are followed, not handed on): where it
 * is and its words, argv[0] the first ("required", "optional"). */
struct plugstack_line {
  const char *file;
  int number;
  int argc;
  char **argv;
};

/* Called for each line, or with `problem` set (one phrase, "cannot read it:
 * No such file or directory") for what could not be read at `line`'s file
 * and number (argc 0). Returns nonzero to stop reading. */
typedef int (*plugstack_visit_fn)(void *ctx, const struct plugstack_line *line, const char *problem);

/* Whether `line` loads slurm-pin's plugin: `required` or `optional`, then a
 * path whose file name is slurm_pin.so. */
int plugstack_line_loads_slurm_pin(const struct plugstack_line *line);

/* Reads `path` and its includes in Slurm's order, handing each line to
 * `visit`. Returns 0 when everything was read, 1 when reading stopped
 * early (`visit` asked, or a limit was met: handed to `visit` as a
 * problem), -1 when `path` itself cannot be read (also handed to `visit`). */
int plugstack_conf_read(const char *path, plugstack_visit_fn visit, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
