/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How profiles in a store are named (NAME or NAME@VERSION), one rule for
 * every front end: the plugin's options, the CLI, the profiler's store and
 * the Lua policy (through its generated module).
 */
#ifndef SLURM_PIN_PROFILE_NAMES_H
#define SLURM_PIN_PROFILE_NAMES_H


#ifdef __cplusplus
extern "C" {
#endif

/* Store profile names, one rule for every front end: 1 when `spec` is NAME
 * or NAME@VERSION (not a path, well formed), else 0. The rule's parts are
 * exported for front ends that cannot call C (the Lua policy's generated
 * module): NAME's characters, its longest length, VERSION's most digits. */
int sp_is_profile_name(const char *spec);
const char *sp_profile_name_chars(void);
int sp_profile_name_max(void);
int sp_profile_version_digits(void);

#ifdef __cplusplus
}
#endif

#endif
