/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What slurm-pin keeps of a user's own, under that user's home directory
 * (the password database's, never $HOME, which a job may set): the traffic
 * rows a recording job's ranks write (explore.record, docs/autopilot.md),
 * and the user's own profile store, where the autopilot assembles them.
 * A profile there steers only that user's jobs; an admin promotes one to
 * the site store. Plain C, libc only.
 */
#ifndef SLURM_PIN_USER_DATA_H
#define SLURM_PIN_USER_DATA_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USER_STORE_SUBDIR ".local/share/slurm-pin/profiles"
#define USER_RECORDINGS_SUBDIR ".local/share/slurm-pin/recorded"

/* HOME/sub for user `uid` into buf: 0, or -1 with errno (ENOENT: no such
 * user or no home; ENAMETOOLONG: buf too small). */
int user_data_dir(uid_t uid, const char *sub, char *buf, size_t len);

/* HOME/sub for user `uid` into buf, as user_data_dir, then made with its
 * missing parents below HOME (mode 0755) as the caller, who must own each
 * directory it makes or finds there: 0, or -1 with errno (buf empty when
 * the home cannot be found; ENOTDIR: a part is no directory or a link;
 * EPERM: another's). */
int user_data_make(uid_t uid, const char *sub, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
