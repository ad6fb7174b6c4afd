/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "key=value key=value" with %-encoded values (anything outside
 * [A-Za-z0-9._/:@,+-] written %XX), for options one process hands another
 * through one environment variable: a heterogeneous step's component
 * options (srun to slurmstepd), the ranks' request (slurmstepd, through a
 * launcher's daemon, to `slurm-pin run`). Plain C, libc only.
 */
#ifndef SLURM_PIN_KV_TEXT_H
#define SLURM_PIN_KV_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Appends " key=value" (no space first) to out at *at; an empty value is
 * left out. -1 when out is full. */
int kv_put(char *out, size_t len, size_t *at, const char *key, const char *value);

/* Decodes src[0..n) into dst of `size`; -1 when malformed, empty or too long. */
int kv_decode(char *dst, size_t size, const char *src, size_t n);

/* Calls field(key, key_len, value, value_len, ctx) for each field of text
 * (values still encoded); stops at the first that returns non-zero. -1 on a
 * field without '=' or with an empty key, or what field returned. */
int kv_each(const char *text, int (*field)(const char *key, size_t key_len, const char *value, size_t value_len,
                                           void *ctx),
            void *ctx);

#ifdef __cplusplus
}
#endif

#endif
