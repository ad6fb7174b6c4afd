-- slurm-pin site policy: which placement each job gets, from ordered admin
-- rules (docs/policy.md). Pure Lua 5.1 (Debian's job_submit/lua embeds 5.1);
-- also runs on 5.2-5.4. No Slurm here: job_submit.lua adapts job_desc.
local M = {}

M.STRATEGIES = { none = true, compact = true, scatter = true, random = true, ["lp-compact"] = true,
                 ["lp-scatter"] = true, gp = true, lpgp = true, gplp = true }
M.NEEDS_PROFILE = { ["lp-compact"] = true, ["lp-scatter"] = true, gp = true, lpgp = true, gplp = true }
local MEM = { none = true, ["local"] = true, interleave = true }
local GRANULARITY = { pu = true, core = true, l2 = true, l3 = true, numa = true }
local MATCH_KEYS = { app = true, partition = true, account = true, user = true, qos = true, nodes = true,
                     has_profile = true }
local ACTION_KEYS = { strategy = true, profile = true, mem = true, granularity = true, mode = true }
local TOP_KEYS = { store = true, partitions = true, rules = true }
local SETTINGS = { "strategy", "profile", "mem", "granularity" }

-- ---- errors that name the file, the line and the fix ------------------------

local PolicyError = {}
PolicyError.__index = PolicyError
PolicyError.__tostring = function(e) return e.message end

local function fail(message) error(setmetatable({ message = message }, PolicyError), 0) end

-- The line where `needle` first appears in the file's text (rules are found
-- by their name), so errors in a rule point at it.
local function line_of(text, needle)
  if not needle then return nil end
  local at = string.find(text, needle, 1, true)
  if not at then return nil end
  local line = 1
  for _ in string.gmatch(string.sub(text, 1, at), "\n") do line = line + 1 end
  return line
end

-- ---- loading and checking a policy file ---------------------------------------

local function read_file(path)
  local f, err = io.open(path, "r")
  if not f then return nil, err end
  local text = f:read("*a")
  f:close()
  return text
end

-- Runs the file in an empty environment: a policy is data, not code with
-- access to os or io.
local function evaluate(text, path)
  local chunk, err
  if setfenv then
    chunk, err = loadstring(text, "@" .. path)
    if chunk then setfenv(chunk, {}) end
  else
    chunk, err = load(text, "@" .. path, "t", {})
  end
  if not chunk then fail(err .. " (fix the Lua syntax)") end
  local ok, value = pcall(chunk)
  if not ok then fail(path .. ": " .. tostring(value) .. " (a policy file only returns a table)") end
  if type(value) ~= "table" then fail(path .. ":1: the file must `return { rules = {...} }`") end
  return value
end

local function as_list(v)
  if type(v) == "table" then return v end
  return { v }
end

local function check_profile_name(name, where)
  if name == "%app" then return end
  if type(name) ~= "string" or not string.match(name, "^[%w%._%+%-]+$") and
     not string.match(name, "^[%w%._%+%-]+@%d+$") then
    fail(where .. "profile '" .. tostring(name) .. "' is not NAME, NAME@VERSION or %app")
  end
end

local function check_action(a, where)
  if type(a) ~= "table" then fail(where .. "'action' must be a table") end
  for k in pairs(a) do
    if not ACTION_KEYS[k] then
      fail(where .. "unknown action '" .. tostring(k) .. "' (use strategy, profile, mem, granularity, mode)")
    end
  end
  if a.strategy ~= nil and not M.STRATEGIES[a.strategy] then
    fail(where .. "unknown strategy '" .. tostring(a.strategy) .. "' (none, compact, scatter, random, " ..
         "lp-compact, lp-scatter, gp, lpgp, gplp)")
  end
  if a.mem ~= nil and not MEM[a.mem] then fail(where .. "mem must be none, local or interleave") end
  if a.granularity ~= nil and not GRANULARITY[a.granularity] then
    fail(where .. "granularity must be pu, core, l2, l3 or numa")
  end
  if a.mode ~= nil and a.mode ~= "default" and a.mode ~= "enforce" then
    fail(where .. "mode must be 'default' (only when the user chose nothing) or 'enforce'")
  end
  if a.profile ~= nil then check_profile_name(a.profile, where) end
  if a.strategy and M.NEEDS_PROFILE[a.strategy] and a.profile == nil then
    fail(where .. "strategy " .. a.strategy .. " needs a profile: add profile = \"NAME\" or profile = \"%app\"")
  end
end

local function check_match(m, where)
  if type(m) ~= "table" then fail(where .. "'match' must be a table") end
  for k, v in pairs(m) do
    if not MATCH_KEYS[k] then
      fail(where .. "unknown match '" .. tostring(k) ..
           "' (use app, partition, account, user, qos, nodes, has_profile)")
    end
    if k == "has_profile" and type(v) ~= "boolean" then fail(where .. "has_profile must be true or false") end
    if k == "nodes" and (type(v) ~= "table" or (v.min == nil and v.max == nil)) then
      fail(where .. "nodes must be { min = N, max = M }")
    end
    if k ~= "has_profile" and k ~= "nodes" then
      for _, s in ipairs(as_list(v)) do
        if type(s) ~= "string" then fail(where .. k .. " must be a name or a list of names") end
      end
    end
  end
end

-- Checks a policy table; returns it normalised. Errors name file and line.
function M.check(policy, text, path)
  for k in pairs(policy) do
    if not TOP_KEYS[k] then
      fail(path .. ":" .. (line_of(text, k) or 1) .. ": unknown key '" .. tostring(k) ..
           "' (a policy has store, partitions and rules)")
    end
  end
  if policy.store ~= nil and type(policy.store) ~= "string" then fail(path .. ": store must be a directory path") end
  policy.partitions = policy.partitions or {}
  for name, a in pairs(policy.partitions) do
    local line = line_of(text, '["' .. name .. '"]') or line_of(text, name .. " =") or 1
    check_action(a, path .. ":" .. line .. ": partition " .. name .. ": ")
    if a.mode == "enforce" then fail(path .. ":" .. line .. ": partition " .. name .. ": partition defaults are never enforced (use a rule)") end
  end
  policy.rules = policy.rules or {}
  if type(policy.rules) ~= "table" then fail(path .. ": rules must be a list") end
  local seen = {}
  for i, r in ipairs(policy.rules) do
    local line = (type(r) == "table" and line_of(text, '"' .. tostring(r.name) .. '"')) or 1
    local where = path .. ":" .. line .. ": rule " .. i .. (type(r) == "table" and r.name and (" (" .. r.name .. ")") or "") .. ": "
    if type(r) ~= "table" then fail(where .. "a rule is { name = ..., match = {...}, action = {...} }") end
    if type(r.name) ~= "string" or r.name == "" then fail(where .. "every rule needs a name (it is logged and recorded on the job)") end
    if seen[r.name] then fail(where .. "two rules are named '" .. r.name .. "' (names must be unique)") end
    seen[r.name] = true
    for k in pairs(r) do
      if k ~= "name" and k ~= "match" and k ~= "action" then
        fail(where .. "unknown field '" .. tostring(k) .. "' (use name, match, action)")
      end
    end
    check_match(r.match or {}, where)
    check_action(r.action or {}, where)
    if not (r.action or {}).strategy and not (r.action or {}).profile then
      fail(where .. "the action sets nothing: give a strategy or a profile")
    end
  end
  return policy
end

-- Loads and checks a policy file. Returns the policy, or nil and one line.
function M.load(path)
  local text, err = read_file(path)
  if not text then return nil, path .. ": " .. tostring(err) .. " (create it, or fix the path)" end
  local ok, result = pcall(function() return M.check(evaluate(text, path), text, path) end)
  if not ok then
    if getmetatable(result) == PolicyError then return nil, result.message end
    return nil, path .. ": " .. tostring(result)
  end
  return result, nil, text
end

-- ---- the profile store index ----------------------------------------------------

-- STORE/.index (written by slurm-pin with every store change): its first line
-- carries a generation, so a job costs one small read until it changes.
local Index = {}
Index.__index = Index

function M.index(store)
  return setmetatable({ store = store, generation = nil, apps = {} }, Index)
end

function Index:refresh()
  local f = io.open(self.store .. "/.index", "r")
  if not f then
    self.generation, self.apps = nil, {}
    return false
  end
  local header = f:read("*l") or ""
  local generation = string.match(header, "^slurm%-pin%-store%-index 1 generation (%d+)$")
  if generation ~= self.generation then
    local apps = {}
    for line in f:lines() do
      local app, threads, version = string.match(line, "^p (%S+) (%d+) (%d+)$")
      if app then
        apps[app] = apps[app] or {}
        local t, v = tonumber(threads), tonumber(version)
        if (apps[app][t] or 0) < v then apps[app][t] = v end
      end
    end
    self.apps, self.generation = apps, generation
  end
  f:close()
  return true
end

-- Is there a profile of `app`, for `threads` threads (nil: any count)?
function Index:has(app, threads)
  local counts = self.apps[app]
  if not counts then return false end
  if not threads then return next(counts) ~= nil end
  return counts[threads] ~= nil
end

-- ---- deciding ----------------------------------------------------------------------

local function matches_name(want, have)
  if have == nil then return false end
  for _, w in ipairs(as_list(want)) do
    if w == have then return true end
  end
  return false
end

-- The first application candidate a rule's `app` accepts (and that has a
-- profile when the rule asks for one).
local function matching_app(rule_match, job, index)
  for _, app in ipairs(job.apps or {}) do
    local ok = rule_match.app == nil or matches_name(rule_match.app, app)
    if ok and rule_match.has_profile ~= nil then
      ok = (index ~= nil and index:has(app, job.threads)) == rule_match.has_profile
    end
    if ok then return app end
  end
  if rule_match.app == nil and rule_match.has_profile ~= true then return job.apps and job.apps[1] or "" end
  return nil
end

local function rule_matches(m, job, index)
  if m.partition and not matches_name(m.partition, job.partition) then return nil end
  if m.account and not matches_name(m.account, job.account) then return nil end
  if m.user and not matches_name(m.user, job.user) then return nil end
  if m.qos and not matches_name(m.qos, job.qos) then return nil end
  if m.nodes then
    local n = job.nodes or 1
    if (m.nodes.min and n < m.nodes.min) or (m.nodes.max and n > m.nodes.max) then return nil end
  end
  return matching_app(m, job, index)
end

local function settings_of(action, app)
  local d = {}
  for _, k in ipairs(SETTINGS) do d[k] = action[k] end
  if d.profile == "%app" then d.profile = app end
  return d
end

-- job: { apps = {...}, partition, account, user, qos, nodes, threads,
--        user_choice = { strategy, profile, mem, granularity } }
-- Returns { rule, mode, strategy, profile, mem, granularity, applied } or nil
-- when nothing applies. `applied` is false when a default rule yields to the
-- user's own choice.
function M.decide(policy, job, index)
  local decision
  for _, r in ipairs(policy.rules) do
    local app = rule_matches(r.match or {}, job, index)
    if app then
      decision = settings_of(r.action, app)
      decision.rule, decision.mode = r.name, r.action.mode or "default"
      break
    end
  end
  if not decision then
    local p = policy.partitions[job.partition or ""] or policy.partitions["*"]
    if not p then return nil end
    decision = settings_of(p, nil)
    decision.rule, decision.mode = "partition:" .. (policy.partitions[job.partition or ""] and job.partition or "*"),
                                   "default"
  end
  local chose = job.user_choice and (job.user_choice.strategy or job.user_choice.profile)
  decision.applied = decision.mode == "enforce" or not chose
  return decision
end

-- "slurm-pin: rule=R mode=M strategy=S profile=P ..." for admin_comment and
-- SLURM_PIN_POLICY: what the SPANK plugin reads back.
function M.format(decision)
  local parts = { "slurm-pin: rule=" .. decision.rule, "mode=" .. decision.mode }
  for _, k in ipairs(SETTINGS) do
    if decision[k] then parts[#parts + 1] = k .. "=" .. decision[k] end
  end
  return table.concat(parts, " ")
end

return M
