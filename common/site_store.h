/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the site's profile store is, set once: the store= of the line that
 * loads slurm_pin.so in the plugstack.conf Slurm reads. The plugin takes it
 * from its own arguments; the commands (slurm-pin profile, profiles, run,
 * evaluate) and the policy in slurmctld find it here, so that an admin
 * writes it in one place. Plain C, libc only, every read bounded.
 */
#ifndef SLURM_PIN_SITE_STORE_H
#define SLURM_PIN_SITE_STORE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SITE_STORE_DEFAULT "/var/lib/slurm-pin/profiles"

/* The plugstack.conf Slurm reads when slurm.conf is `slurm_conf` (NULL:
 * $SLURM_CONF, else /etc/slurm/slurm.conf): its PlugStackConfig, else
 * plugstack.conf beside it. Written into buf (len bytes). */
void site_plugstack_path(const char *slurm_conf, char *buf, size_t len);

/* The store= of the first line of `plugstack` (and the files its include
 * lines name, read by plugstack_conf.h within its bounds) that loads
 * slurm_pin.so, into buf: 1 when a line gives one, 0 when none does (buf
 * empty), -1 when the file cannot be read. */
int site_store_from_plugstack(const char *plugstack, char *buf, size_t len);

/* The store a command uses when not told (--store): $SLURM_PIN_STORE, else
 * the plugstack line's store= (slurm.conf from $SLURM_CONF), else
 * SITE_STORE_DEFAULT. Written into buf; returns where it came from, for
 * messages: "SLURM_PIN_STORE", "plugstack.conf" or "the default". */
const char *site_store_dir(char *buf, size_t len);

#ifdef __cplusplus
}
#include <string>
// site_store_dir for the C++ commands.
inline std::string site_store() {
  char buf[4096];
  site_store_dir(buf, sizeof buf);
  return buf;
}
#endif

#endif
