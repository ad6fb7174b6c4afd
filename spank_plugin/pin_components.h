/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --pin-* options of each component of a heterogeneous step
 * (`srun A : B`), as `--cpu-bind` is per component. SPANK keeps one value
 * per option for the whole step (the last one given), so srun writes each
 * component's options into the job's environment as
 * SLURM_PIN_OPTIONS_HET_GROUP_<k>, and slurmstepd reads its own component's.
 * A user can write these variables too, which only chooses options the
 * user could give anyway: the site's rules are checked on the result.
 */
#ifndef SLURM_PIN_COMPONENTS_H
#define SLURM_PIN_COMPONENTS_H

#include <stddef.h>

#include "pin_config.h"

#define PIN_COMPONENT_ENV "SLURM_PIN_OPTIONS_HET_GROUP_"

/* "strategy=V profile=V mem=V granularity=V threads=V smt=V gpu=V flags=F,F": values
 * %-encoded (anything outside [A-Za-z0-9._/:@,+-] is %XX), empty ones left
 * out. -1 when len is too small. */
int pin_request_format(const struct pin_request *r, char *out, size_t len);

/* The inverse; -1 on any malformed, unknown or repeated field (r is then
 * zeroed). Values are not checked against the site's rules here. */
int pin_request_parse(const char *text, struct pin_request *r);

#endif
