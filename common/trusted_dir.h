/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files that root-side code (slurmd, slurmstepd, a job's prolog) writes or
 * trusts: the node's topology cache, the policy decision of a job, the data
 * a task reads back. A path is trusted when every directory on it, from /,
 * is a real directory (never a symbolic link), owned by root and writable by
 * nobody else. A root-owned sticky directory (/tmp, /dev/shm) is accepted:
 * others may add entries there but never rename or remove root's. Each
 * component is opened once with O_NOFOLLOW and checked with fstat on that
 * descriptor, so no later lookup of the path can be raced. Plain C, libc
 * only: the SPANK plugin and the engine both compile it in.
 */
#ifndef SLURM_PIN_TRUSTED_DIR_H
#define SLURM_PIN_TRUSTED_DIR_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The directory `path` (absolute), opened O_DIRECTORY|O_CLOEXEC after
 * checking every component. With `create`, missing components are made
 * (0755, root's) below the last one that exists. Returns the descriptor, or
 * -1 with one line in err naming the component and the fix. */
int trusted_dir_open(const char *path, int create, char *err, size_t len);

/* `name` (one component) in the trusted directory `dirfd`, opened once
 * (O_NOFOLLOW, non-blocking) and read whole: a regular file owned by root,
 * writable by nobody else, at most max_bytes. Returns malloc'd text with a
 * NUL after its `*size` bytes, or NULL with err set; errno is ENOENT when
 * nothing is there. */
char *trusted_file_read(int dirfd, const char *name, size_t max_bytes, size_t *size, char *err, size_t len);

/* Writes `name` in `dirfd` atomically (a new file beside it, renamed over
 * it): readers see the old or the new content, never half. 0, or -1 with
 * err set. */
int trusted_file_write(int dirfd, const char *name, const char *data, size_t size, mode_t mode, char *err,
                       size_t len);

/* Removes the directory `name` of `dirfd` and the files in it (one level:
 * what root-side hooks wrote there). Links are removed, never followed.
 * 0, or -1 (errno set) when something was left. */
int trusted_dir_remove(int dirfd, const char *name);

/* `name` is one path component made only of letters, digits and . _ -
 * (not "." or ".."): safe to put in a file name. */
int trusted_name_ok(const char *name);

#ifdef __cplusplus
}
#endif

#endif
