/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One message line on standard error in one write(2). Ranks, tasks and
 * their daemons share one output stream; glibc 2.37 and later write an
 * unbuffered stderr in 128-byte pieces, so two long lines printed at once
 * with fprintf come out cut into each other. Plain C, libc only; no
 * allocation (a forked task before exec calls it).
 */
#ifndef SLURM_PIN_STDERR_LINE_H
#define SLURM_PIN_STDERR_LINE_H

#ifdef __cplusplus
extern "C" {
#endif

/* printf-style; the line ends with a newline whether or not fmt gives one,
 * and is cut (ending in "...") past 4 KiB. */
void stderr_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif
