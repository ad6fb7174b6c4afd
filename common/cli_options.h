/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The long options that several commands take (slurm-pin place and run,
 * slurm-pin-profile, slurm-pin-profiles): one getopt_long code each, the
 * same in every command's table, above every character so that none is
 * also a short option. Options one command alone takes keep a character.
 */
#ifndef SLURM_PIN_CLI_OPTIONS_H
#define SLURM_PIN_CLI_OPTIONS_H

enum sp_cli_option {
  SP_OPT_APP = 256,
  SP_OPT_GPU,
  SP_OPT_GRANULARITY,
  SP_OPT_MODEL,
  SP_OPT_OUTPUT,
  SP_OPT_OVERSUBSCRIBE,
  SP_OPT_PHASES,
  SP_OPT_PROFILE,
  SP_OPT_REGION,
  SP_OPT_SEED,
  SP_OPT_SMT,
  SP_OPT_STORE,
  SP_OPT_STRATEGY,
  SP_OPT_THREADS,
  SP_OPT_TOPOLOGY,
};

#endif
