-- SPDX-License-Identifier: GPL-2.0-or-later
-- Cost of the policy per submitted job, measured on the adapter slurmctld
-- runs (Lua 5.1), against the same calls with the policy disabled.
--   lua5.1 bench_policy.lua LUA_DIR STORE JOBS PROFILES POLICY_DIR
local lua_dir, store, jobs = arg[1], arg[2], tonumber(arg[3] or "20000")
package.path = lua_dir .. "/?.lua;" .. package.path
local adapter = require("slurm_pin_job_submit")

-- The policy file beside the store, in a directory only root can change
-- (slurm_pin_io refuses one it cannot trust, as in slurmctld).
local policy_file = arg[5] .. "/slurm-pin-policy.lua"
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

local OFF = "/nonexistent/policy.lua"  -- no policy: every job passes unchanged

-- Each job has its own name; `script` is its batch script.
local function job_desc(i, script)
  return { name = "app" .. (i % 12000), user_name = "u", cpus_per_task = 8, min_nodes = 1, partition = "batch",
           spank_job_env = {}, environment = {}, script = script }
end

-- Per-job cost (microseconds) of `jobs` submissions of job_desc(i, script)
-- with the policy file `file`; fails when a policy that should be in force
-- is not (the reader slurm_pin_io not found, a broken file).
local function run(file, script, count)
  local loaded, errors = false, {}
  local log = { info = function(m) if string.find(m, "loaded", 1, true) then loaded = true end end,
                error = function(m) errors[#errors + 1] = m end }
  adapter.setup({ file = file, recheck = 10, log = log })
  adapter.submit(job_desc(0, script), {}, 0)  -- loads the policy and the index
  if file ~= OFF and not loaded then error("the policy is not in force: " .. table.concat(errors, "; ")) end
  local start = os.clock()
  for i = 1, count do adapter.submit(job_desc(i, script), {}, 0) end
  return (os.clock() - start) / count * 1e6
end

-- A batch script of about `bytes`: a header, comments and commands, and an
-- srun line every 40 lines (real scripts are mostly not launcher lines).
local function script_of(bytes)
  local lines, size, i = { "#!/bin/bash", "#SBATCH -n 8 -c 8" }, 0, 0
  while size < bytes do
    i = i + 1
    local line = (i % 40 == 0) and ("srun -n 8 --cpu-bind=none ./solver_step" .. i .. " input." .. i)
                 or ("echo \"step " .. i .. ": preparing the input of the next solver run\" >>log.txt")
    lines[#lines + 1] = line
    size = size + #line + 1
  end
  return table.concat(lines, "\n") .. "\n"
end

local small = "#!/bin/sh\nsrun -n 8 ./app\n"
local off = run(OFF, small, jobs)
local on = run(policy_file, small, jobs)
print(string.format("jobs: %d, profiles in the store: %s", jobs, arg[4] or "?"))
print(string.format("per job without a policy: %8.2f us", off))
print(string.format("per job with the policy:  %8.2f us (in force: %s)", on, policy_file))
print(string.format("policy cost per job:      %8.2f us", on - off))
print("")
print("policy cost per job against the batch script's size (a policy in force; the same jobs without it):")
print(string.format("%10s %8s %12s %12s %12s", "script", "jobs", "without us", "with us", "cost us"))
for _, kb in ipairs({ 11, 64, 256, 1024, 4096 }) do
  local script = script_of(kb * 1024)
  local n = math.max(20, math.floor(jobs / kb))
  local o, w = run(OFF, script, n), run(policy_file, script, n)
  print(string.format("%8d KB %8d %12.1f %12.1f %12.1f", kb, n, o, w, w - o))
end
os.remove(policy_file)
