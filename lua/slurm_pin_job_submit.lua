-- SPDX-License-Identifier: GPL-2.0-or-later
-- slurm-pin's adapter between Slurm's job_submit/lua and the policy engine.
-- Merge into an existing job_submit.lua with:
--   local slurm_pin = require("slurm_pin_job_submit")
--   ... in slurm_job_submit: slurm_pin.submit(job_desc, part_list, submit_uid)
-- It never rejects or fails a job: a broken policy or store leaves jobs as
-- they were and logs one error naming the file, line and fix.
local policy_engine = require("slurm_pin_policy")

local M = {}

local PLUGIN = "_SLURM_SPANK_OPTION_slurm_pin_"            -- SPANK options in spank_job_env
local ENV = "SLURM_SPANK__SLURM_SPANK_OPTION_slurm_pin_"   -- the same as environment variables
local OPTIONS = { strategy = "pin_strategy", profile = "pin_profile", mem = "pin_mem", granularity = "pin_granularity" }
local NO_VAL = 4294967294
local NO_VAL16 = 65534

local state = {
  file = "/etc/slurm/slurm-pin-policy.lua",
  recheck = 10,   -- seconds between looks at the policy file
  checked = nil,  -- os.time() of the last look
  text = nil,     -- the file as last read
  policy = nil,
  index = nil,
  log = { info = print, error = print },
}

function M.setup(options)
  for k, v in pairs(options or {}) do state[k] = v end
  state.checked, state.text, state.policy, state.loaded, state.last_error = nil, nil, nil, false, nil
end

-- Re-reads the policy when its text changed; a broken file disables the
-- policy (jobs pass unchanged) with one error per change.
local function current_policy()
  local now = os.time()
  if state.checked and now - state.checked < state.recheck then return state.policy end
  state.checked = now
  local f = io.open(state.file, "r")
  local text = f and f:read("*a") or nil
  if f then f:close() end
  if text == state.text and state.loaded then return state.policy end
  state.text, state.loaded, state.last_error = text, true, nil  -- a changed file: its problem is news
  local policy, err = policy_engine.load(state.file, text)
  if not policy then
    state.policy = nil
    if err ~= state.last_error then  -- once per problem, not once per look
      state.log.error("slurm-pin: policy disabled, jobs pass unchanged: " .. err)
    end
    state.last_error = err
    return nil
  end
  state.last_error = nil
  state.policy = policy
  state.index = policy_engine.index(policy.store or "/var/lib/slurm-pin/profiles")
  state.log.info("slurm-pin: policy " .. state.file .. " loaded: " .. #policy.rules .. " rules")
  return policy
end

-- A policy that broke its budget deciding a job is disabled until its file
-- changes: one error, and every job passes unchanged meanwhile.
local function disable(err)
  state.policy = nil
  if err ~= state.last_error then state.log.error("slurm-pin: policy disabled, jobs pass unchanged: " .. err) end
  state.last_error = err
end

-- User strings (job and script names, accounts) as they may appear in a
-- log line: quoted, with control and non-ASCII bytes as \ddd, and cut, so
-- no name can forge a line or a field.
local function shown(value)
  local s = tostring(value)
  if #s > 200 then s = string.sub(s, 1, 200) .. "..." end
  s = string.gsub(s, "[%c\\'\128-\255]", function(c) return string.format("\\%03d", string.byte(c)) end)
  return "'" .. s .. "'"
end
M._shown = shown

local function spank_options(job_desc)
  local found = {}
  local env = job_desc.spank_job_env
  if type(env) == "table" then
    for _, entry in pairs(env) do
      local name, value = string.match(tostring(entry), "^" .. PLUGIN .. "([%w_]+)=(.*)$")
      if name then found[name] = value end
    end
  end
  local environment = job_desc.environment
  for _, option in pairs(OPTIONS) do
    local v = type(environment) == "table" and environment[ENV .. option] or nil
    if v and found[option] == nil then found[option] = v end
  end
  return found
end

-- Executables the batch script launches: the first word after srun/mpirun/
-- mpiexec and their options.
local function launched(script)
  local apps = {}
  for line in string.gmatch(script or "", "[^\n]+") do
    local rest = string.match(line, "^%s*srun%s+(.*)") or string.match(line, "^%s*mpirun%s+(.*)") or
                 string.match(line, "^%s*mpiexec%s+(.*)")
    if rest then
      local skip = false
      for word in string.gmatch(rest, "%S+") do
        if skip then
          skip = false
        elseif string.sub(word, 1, 1) == "-" then
          -- "-n 4" takes a value; "--ntasks=4" does not
          skip = string.len(word) == 2 and not string.find(word, "=", 1, true)
        else
          apps[#apps + 1] = string.match(word, "([^/]+)$")
          break
        end
      end
    end
  end
  return apps
end

local function default_partition(part_list)
  for _, p in pairs(part_list or {}) do
    if p.flag_default == 1 then return p.name end
  end
  return nil
end

local function job_view(job_desc, part_list)
  local options = spank_options(job_desc)
  local apps = {}
  if options.pin_profile then apps[#apps + 1] = string.match(options.pin_profile, "^([^@/]+)") end
  if job_desc.name then apps[#apps + 1] = job_desc.name end
  for _, a in ipairs(launched(job_desc.script)) do apps[#apps + 1] = a end
  local environment = job_desc.environment
  local threads = tonumber(type(environment) == "table" and environment["OMP_NUM_THREADS"] or nil)
  local cpt = job_desc.cpus_per_task
  if not threads and cpt and cpt ~= NO_VAL16 and cpt > 0 then threads = cpt end
  local nodes = job_desc.min_nodes
  return {
    apps = apps,
    partition = string.match(job_desc.partition or default_partition(part_list) or "", "^([^,]*)"),
    account = job_desc.account,
    user = job_desc.user_name,
    qos = job_desc.qos,
    nodes = (nodes and nodes ~= NO_VAL) and nodes or 1,
    threads = threads,
    batch = job_desc.script ~= nil,
    user_choice = { strategy = options.pin_strategy, profile = options.pin_profile, mem = options.pin_mem,
                    granularity = options.pin_granularity },
  }
end

-- Our part of admin_comment is "slurm-pin: ..." up to the end or a " | ".
local function with_decision(comment, text)
  local others = {}
  for part in string.gmatch(comment or "", "[^|]+") do
    part = string.match(part, "^%s*(.-)%s*$")
    if part ~= "" and string.sub(part, 1, 10) ~= "slurm-pin:" then others[#others + 1] = part end
  end
  others[#others + 1] = text
  return table.concat(others, " | ")
end

local function apply(job_desc, job, decision)
  local text = policy_engine.format(decision) .. (decision.applied and "" or " applied=no")
  job_desc.admin_comment = with_decision(job_desc.admin_comment, text)
  -- Batch jobs also carry an applied decision as the options themselves, so
  -- that srun checks them before launching; the plugin on the node reads
  -- the decision itself from AdminComment (plugstack.conf `policy`).
  if job.batch and decision.applied then
    for setting, option in pairs(OPTIONS) do
      if decision[setting] then job_desc.environment[ENV .. option] = decision[setting] end
    end
  end
  state.log.info(string.format("slurm-pin: job %s of %s: rule %s %s: %s", shown(job_desc.name), shown(job.user),
                               decision.rule, decision.applied and "applied" or "yields to the user's own choice",
                               text))
end

function M.submit(job_desc, part_list, submit_uid)
  local ok, err = pcall(function()
    local policy = current_policy()
    if not policy then return end
    if state.index then state.index:refresh() end
    local job = job_view(job_desc, part_list)
    local decision, over = policy_engine.decide_budgeted(policy, job, state.index, state.file)
    if over then return disable(over) end
    if decision then apply(job_desc, job, decision) end
  end)
  if not ok then state.log.error("slurm-pin: policy skipped for this job: " .. shown(err)) end
end

M._job_view, M._launched, M._with_decision = job_view, launched, with_decision
return M
