/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `slurm-pin doctor` asks the plugin Slurm loads on a node: would this
 * plugstack.conf line work here? The plugin answers for itself, from where
 * it is installed and with the code its hooks run: every argument parsed and
 * checked as slurmstepd checks it, the placement engine loaded as a step
 * loads it, the thread runtime found as --pin-thread-binding=preload finds
 * it. Slurm never calls it; the doctor loads the plugin with dlopen and
 * looks the function up by name (PIN_DOCTOR_SYMBOL).
 */
#ifndef SLURM_PIN_PLUGIN_DOCTOR_H
#define SLURM_PIN_PLUGIN_DOCTOR_H

#define PIN_DOCTOR_SYMBOL "slurm_pin_doctor"

/* One finding: `error` 1 for what stops jobs, 0 for a note; `what` the
 * argument or part concerned ("default=packed", "engine"); `message` one
 * line saying what is wrong and how to fix it. */
typedef void (*pin_doctor_report)(void *ctx, int error, const char *what, const char *message);

/* Checks the line's arguments av[0..ac-1] (after the plugin's path), each
 * on its own so that every mistake is reported, then the line as a whole,
 * the engine and the thread runtime. When all is well it also notes the
 * line's store directory ("store") and whether the policy is on ("policy":
 * on|off). Returns the number of errors. */
int slurm_pin_doctor(int ac, char **av, pin_doctor_report report, void *ctx);
typedef int (*pin_doctor_fn)(int ac, char **av, pin_doctor_report report, void *ctx);

#endif
