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
  -- account, user, qos (a name or a list), nodes, tasks, threads
  -- (= { min, max }), has_profile.
  -- action: strategy, profile ("NAME", "NAME@V" or "%app"), mem, granularity,
  -- thread_binding (as --pin-thread-binding), env (variables for the step,
  -- e.g. { OMP_NUM_THREADS = 8 }), mode = "default" (only if the user chose
  -- no --pin-strategy/--pin-profile) or "enforce" (always).
  rules = {
    { name = "benchmarking-fixed",
      match = { account = "benchmark" },
      action = { strategy = "compact", mode = "enforce" } },
    { name = "lulesh-gplp",
      match = { app = "lulesh", partition = { "numa", "batch" } },
      action = { strategy = "gplp", profile = "lulesh" } },
    -- What `slurm-pin evaluate --emit-rule` measured for one shape of stream.
    { name = "evaluated-stream-n1-t8",
      match = { app = "stream", tasks = { min = 1, max = 1 }, threads = { min = 8, max = 8 } },
      action = { strategy = "scatter", thread_binding = "preload", env = { OMP_NUM_THREADS = "8" } } },
    { name = "any-profiled-app",
      match = { has_profile = true },
      action = { strategy = "lpgp", profile = "%app" } },
  },
}
