/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The placement engine (the private libslurmpin_frontend.so), loaded when a step first needs
 * it rather than with the plugin. srun loads the plugin for every job, and
 * the engine brings the C++ runtime, hwloc, libudev, METIS and libnuma:
 * about a millisecond per srun (bench/srun). srun checks option values and
 * store names without it (slurm_pin_options.h, linked into the plugin), and
 * loads it only to read a profile or placement file, or for
 * --pin-strategy=help; slurmstepd never loads it (its placing helper does).
 * The plugin calls the C API (slurm_pin_frontend.h) as usual; in the
 * plugin those functions are forwarders that load the engine on first use.
 */
#ifndef SLURM_PIN_ENGINE_LINK_H
#define SLURM_PIN_ENGINE_LINK_H

#include <stddef.h>

/* Loads the engine if not yet loaded: 0, or -1 with `err` saying which
 * library could not be loaded and how to fix it. It is looked for beside
 * the plugin (a build tree), then where the packages install it relative to
 * the plugin (PIN_PLUGIN_TO_LIB/slurm-pin): it is private to slurm-pin, so
 * never by the system's library search. */
int pin_engine_load(char *err, size_t len);

/* Why the engine could not be loaded ("" when it was, or was not tried). */
const char *pin_engine_error(void);

#endif
