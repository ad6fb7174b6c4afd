/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files that root-side code (slurmd, slurmstepd, a job's prolog) writes or
 * trusts: the node's topology cache, the policy decision of a job, the
 * node's placement cache. A path is trusted when every directory on it, from /,
 * is a real directory (never a symbolic link), owned by root and writable by
 * nobody else, sticky or not: under a world-writable directory (/tmp,
 * /dev/shm) any user could make the next component first, and so stop
 * every step that needs it until an admin removes it. Each
 * component is opened once with O_NOFOLLOW and checked with fstat on that
 * descriptor, so no later lookup of the path can be raced. Plain C, libc
 * only: the SPANK plugin and the engine both compile it in.
 */
#ifndef SLURM_PIN_TRUSTED_DIR_H
#define SLURM_PIN_TRUSTED_DIR_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one rule for what root-side code may trust, here and wherever else
 * it reads (the profile store, the site policy's files): an object of the
 * kind wanted (S_IFDIR or S_IFREG), owned by root or by `owner` (0: root
 * alone), and writable by its owner alone (not by group or others, sticky
 * or not). NULL when it may be trusted; else what is wrong, a phrase after
 * the object's name ("is writable by group or others"). */
const char *trusted_stat_problem(const struct stat *st, mode_t kind, uid_t owner);

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

/* The program at `path` (absolute) is root's alone: resolved component by
 * component, symbolic links followed (at most 16), every directory met
 * trusted as above and the file a regular, executable one owned by root and
 * writable by nobody else; so what `path` names cannot change under a
 * user. 0, or -1 with one line in err naming the part that is not. */
int trusted_program(const char *path, char *err, size_t len);

/* The same for a directory (`path` absolute, links followed): it and every
 * directory on the way root's alone. 0, or -1 with err set; errno ENOENT
 * when a part does not exist, EACCES when a directory found trusted is
 * closed to the caller (nobody but root can change what is under it). */
int trusted_path_dir(const char *path, char *err, size_t len);

/* The same for an existing file root-side code loads or reads (a library:
 * no execute bit needed), except that a directory on the way may be a
 * sticky one others can write (/tmp) when what it holds on the way is
 * root's: nobody else can rename or remove that. `resolved` (PATH_MAX
 * bytes, or NULL) gets its path with every link followed, the file to open.
 * 0, or -1 with err set (errno as above). */
int trusted_file_path(const char *path, char *resolved, char *err, size_t len);

/* `name` is one path component made only of letters, digits and . _ -
 * (not "." or ".."): safe to put in a file name. */
int trusted_name_ok(const char *name);

#ifdef __cplusplus
}
#endif

#endif
