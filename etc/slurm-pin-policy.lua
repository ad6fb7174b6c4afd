-- SPDX-License-Identifier: GPL-2.0-or-later
-- slurm-pin site policy (read by job_submit.lua; check it with
-- `slurm-pin policy check FILE`, try it with `slurm-pin policy explain ...`).
-- Lua data only: the file runs with no access to os, io or anything else.
return {
  -- The profile store (`slurm-pin profile` writes it; has_profile reads its
  -- index). Leave it out to use the site's: the store= of the slurm_pin.so
  -- line in plugstack.conf (else /var/lib/slurm-pin/profiles), which the
  -- plugin and every slurm-pin command use too.
  -- store = "/srv/slurm-pin/profiles",

  -- The site default per partition, for jobs no rule matches, and only when
  -- the user chose nothing. "*" is every other partition. Seed 000: scatter
  -- pays on NUMA machines, compact elsewhere.
  partitions = {
    numa = { strategy = "scatter", mem = "local" },
    ["*"] = { strategy = "compact" },
  },

  -- Ordered: the first rule that matches decides. match: app, partition,
  -- account, user, qos (a name or a list), nodes = { min, max }, has_profile.
  -- action: strategy, profile ("NAME", "NAME@V" or "%app"), mem, granularity,
  -- mode = "default" (only if the user chose no --pin-strategy/--pin-profile)
  -- or "enforce" (always).
  rules = {
    { name = "benchmarking-fixed",
      match = { account = "benchmark" },
      action = { strategy = "compact", mode = "enforce" } },
    { name = "lulesh-gplp",
      match = { app = "lulesh", partition = { "numa", "batch" } },
      action = { strategy = "gplp", profile = "lulesh" } },
    { name = "any-profiled-app",
      match = { has_profile = true },
      action = { strategy = "lpgp", profile = "%app" } },
  },
}
