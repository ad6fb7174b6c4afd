-- SPDX-License-Identifier: GPL-2.0-or-later
-- Cost of the policy per submitted job, measured on the adapter slurmctld
-- runs (Lua 5.1), against the same calls with the policy disabled.
--   lua5.1 bench_policy.lua LUA_DIR STORE JOBS
local lua_dir, store, jobs = arg[1], arg[2], tonumber(arg[3] or "20000")
package.path = lua_dir .. "/?.lua;" .. package.path
local adapter = require("slurm_pin_job_submit")

local policy_file = os.tmpname()
local f = assert(io.open(policy_file, "w"))
f:write(string.format([[
return {
  store = %q,
  partitions = { ["*"] = { strategy = "compact" }, numa = { strategy = "scatter", mem = "local" } },
  rules = {
    { name = "bench", match = { account = "bench" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "big", match = { nodes = { min = 64 } }, action = { strategy = "scatter" } },
    { name = "chem", match = { app = { "vasp", "gromacs", "lammps", "cp2k" }, partition = "numa" },
      action = { strategy = "gplp", profile = "%%app" } },
    { name = "profiled", match = { has_profile = true }, action = { strategy = "lpgp", profile = "%%app" } },
  },
}
]], store))
f:close()

local function job_desc(i)
  return { name = "app" .. (i % 12000), user_name = "u", cpus_per_task = 8, min_nodes = 1, partition = "batch",
           spank_job_env = {}, environment = {}, script = "#!/bin/sh\nsrun -n 8 ./app" .. (i % 12000) .. "\n" }
end

local function run(file)
  local quiet = { info = function() end, error = function() end }
  adapter.setup({ file = file, recheck = 10, log = quiet })
  adapter.submit(job_desc(0), {}, 0)  -- loads the policy and the index
  local start = os.clock()
  for i = 1, jobs do adapter.submit(job_desc(i), {}, 0) end
  return (os.clock() - start) / jobs * 1e6
end

local off = run("/nonexistent/policy.lua")
local on = run(policy_file)
os.remove(policy_file)
print(string.format("jobs: %d, profiles in the store: %s", jobs, arg[4] or "?"))
print(string.format("per job without a policy: %8.2f us", off))
print(string.format("per job with the policy:  %8.2f us", on))
print(string.format("policy cost per job:      %8.2f us", on - off))
