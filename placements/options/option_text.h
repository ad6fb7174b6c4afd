/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options' messages (option_values.c, profile_names.c): a user's text
 * as a message shows it, and the one-line refusal. Private to
 * placements/options.
 */
#ifndef SLURM_PIN_OPTION_TEXT_H
#define SLURM_PIN_OPTION_TEXT_H

#include <stddef.h>

/* The first `n` bytes of `text` as a message shows them: at most `max`,
 * printable ASCII kept, every other byte \xNN (a terminal's escape never
 * reaches a log), "..." when cut. Returns buf. */
const char *option_text_shown(const char *text, size_t n, size_t max, char *buf, size_t len);

/* -1, with the message in err[len] (cut to fit) when err is given. */
int option_text_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
