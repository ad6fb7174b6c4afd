-- SPDX-License-Identifier: GPL-2.0-or-later
-- slurm-pin site policy: which placement each job gets, from ordered admin
-- rules (docs/policy.md). Pure Lua 5.1 (Debian's job_submit/lua embeds 5.1);
-- also runs on 5.2-5.4. No Slurm here: job_submit.lua adapts job_desc.
local sandbox = require("slurm_pin_sandbox")
local strategies = require("slurm_pin_strategies")  -- generated from the engine's list

local M = {}

-- A job's application candidates are at most this many distinct names (the
-- profile it names, its name, what its script launches): with the rules'
-- app index, what deciding one job costs is bounded by the policy alone.
M.MAX_APPS = 16
-- The longest application name a rule may hold (the store's are shorter):
-- a longer word in a job is no candidate.
M.MAX_APP_NAME = 255

M.STRATEGIES = {}
for _, name in ipairs(strategies.names) do M.STRATEGIES[name] = true end
M.NEEDS_PROFILE = strategies.needs_profile
local STRATEGY_NAMES = table.concat(strategies.names, ", ")
local MEM = { none = true, ["local"] = true, interleave = true }
local GRANULARITY = { pu = true, core = true, l2 = true, l3 = true, numa = true }
local THREAD_BINDING = { auto = true, env = true, preload = true, ompt = true }
local MATCH_KEYS = { app = true, partition = true, account = true, user = true, qos = true, nodes = true,
                     tasks = true, threads = true, has_profile = true }
-- Match keys that are ranges of whole numbers: { min = N, max = M }.
local RANGE_KEYS = { nodes = true, tasks = true, threads = true }
local ACTION_KEYS = { strategy = true, profile = true, mem = true, granularity = true, thread_binding = true,
                      env = true, mode = true }
local ACTION_NAMES = "strategy, profile, mem, granularity, thread_binding, env, mode"
local TOP_KEYS = { store = true, partitions = true, rules = true, autopilot = true }
-- What a learned file (the autopilot's, slurm-pin autopilot decide) may hold.
local LEARNED_KEYS = { rules = true, stopped = true, recorded = true }
-- An explore rule's default and largest number of runs per candidate.
M.EXPLORE_RUNS = 31
M.MAX_EXPLORE_RUNS = 1000
-- The most jobs of an application an explore rule runs with the MPI
-- traffic recorder (explore.record).
M.MAX_RECORD = 10
local EXPLORE_KEYS = { strategies = true, runs = true, record = true }
-- The settings a decision carries besides env, in the order it records them.
local SETTINGS = { "strategy", "profile", "mem", "granularity", "thread_binding" }

-- An action's env: at most MAX_ENV variables the nodes set in the step's
-- environment. Names and values are bounded so that a decision always fits
-- the record the nodes read (pin_policy_parse); variables slurm-pin or
-- Slurm set themselves from the placement cannot be given.
M.MAX_ENV = 8
M.MAX_ENV_NAME = 64
M.MAX_ENV_VALUE = 256
local PLACEMENT_ENV = { OMP_PLACES = true, OMP_PROC_BIND = true, GOMP_CPU_AFFINITY = true, KMP_AFFINITY = true }

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
-- access to os or io. Lua 5.1 runs bytecode unverified: only text is taken.
local function evaluate(text, path)
  if string.byte(text, 1) == 27 then
    fail(path .. ": precompiled Lua bytecode is not accepted (give the policy as Lua source)")
  end
  local chunk, err
  if setfenv then
    chunk, err = loadstring(text, "@" .. path)
    if chunk then setfenv(chunk, {}) end
  else
    chunk, err = load(text, "@" .. path, "t", {})
  end
  if not chunk then fail(err .. " (fix the Lua syntax)") end
  local ok, value = pcall(chunk)
  if not ok and sandbox.is_budget_error(value) then error(value, 0) end
  if not ok then fail(path .. ": " .. tostring(value) .. " (a policy file only returns a table)") end
  if type(value) ~= "table" then fail(path .. ":1: the file must `return { rules = {...} }`") end
  return value
end

local function as_list(v)
  if type(v) == "table" then return v end
  return { v }
end

-- A store profile name, by the engine's one rule (generated into
-- slurm_pin_strategies.lua): NAME or NAME@VERSION.
local NAME_RULE = strategies.profile_name
local NAME_CLASS = "^[" .. string.gsub(NAME_RULE.chars, "%W", "%%%0") .. "]+$"

function M.valid_profile_name(name)
  if type(name) ~= "string" or #name > NAME_RULE.max + 1 + NAME_RULE.version_digits then return false end
  local app, version = string.match(name, "^([^@]*)@(.*)$")
  app = app or name
  if #app == 0 or #app > NAME_RULE.max or string.sub(app, 1, 1) == "." then return false end
  if not string.match(app, NAME_CLASS) then return false end
  if version == nil then return true end
  return #version >= 1 and #version <= NAME_RULE.version_digits and string.match(version, "^%d+$") ~= nil
    and tonumber(version) > 0
end

local function check_profile_name(name, where)
  if name == "%app" then return end
  if not M.valid_profile_name(name) then
    fail(where .. "profile '" .. tostring(name) .. "' is not NAME, NAME@VERSION or %app")
  end
end

local function check_string(v, what, where)
  if v ~= nil and type(v) ~= "string" then fail(where .. what .. " must be a string, not a " .. type(v)) end
end

-- An env value in the record: every byte outside letters, digits and
-- . _ - + / : , written %XX, so a value never holds a blank or an '='
-- that could end its field or start another.
local function encode_value(v)
  return (string.gsub(v, "[^%w%._%-%+/:,]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

-- Why an env variable's name cannot be set by a rule, or nil.
local function env_name_problem(name)
  if type(name) ~= "string" or not string.match(name, "^[%a_][%w_]*$") or #name > M.MAX_ENV_NAME then
    return "is not a variable name (letters, digits and _, at most " .. M.MAX_ENV_NAME .. ")"
  end
  if PLACEMENT_ENV[name] or string.sub(name, 1, 3) == "LD_" or string.sub(name, 1, 6) == "SLURM_" then
    return "is set by slurm-pin or Slurm from the placement (a rule sets the strategy instead)"
  end
  return nil
end

-- A rule's env: { NAME = "value" or number, ... }.
local function check_env(env, where)
  if type(env) ~= "table" then fail(where .. "env must be a table { NAME = \"value\", ... }") end
  local count = 0
  for name, value in pairs(env) do
    count = count + 1
    if count > M.MAX_ENV then fail(where .. "env sets at most " .. M.MAX_ENV .. " variables") end
    local problem = env_name_problem(name)
    if problem then fail(where .. "env: '" .. tostring(name) .. "' " .. problem) end
    if type(value) == "number" and value == math.floor(value) and value >= 0 then value = string.format("%d", value) end
    if type(value) ~= "string" or not string.match(value, "^[\32-\126]*$") or #encode_value(value) > M.MAX_ENV_VALUE then
      fail(where .. "env: " .. name .. " must be a whole number or printable text of at most " .. M.MAX_ENV_VALUE ..
           " characters (a blank or a symbol other than . _ - + / : , counts as 3)")
    end
  end
end

local function check_action(a, where)
  if type(a) ~= "table" then fail(where .. "'action' must be a table") end
  for _, k in ipairs({ "strategy", "profile", "mem", "granularity", "thread_binding", "mode" }) do
    check_string(a[k], k, where)
  end
  for k in pairs(a) do
    if not ACTION_KEYS[k] then fail(where .. "unknown action '" .. tostring(k) .. "' (use " .. ACTION_NAMES .. ")") end
  end
  if a.thread_binding ~= nil and not THREAD_BINDING[a.thread_binding] then
    fail(where .. "thread_binding must be auto, env, preload or ompt (as --pin-thread-binding)")
  end
  if a.env ~= nil then check_env(a.env, where) end
  if a.strategy ~= nil and not M.STRATEGIES[a.strategy] then
    fail(where .. "unknown strategy '" .. tostring(a.strategy) .. "' (" .. STRATEGY_NAMES .. ")")
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
           "' (use app, partition, account, user, qos, nodes, tasks, threads, has_profile)")
    end
    if k == "has_profile" and type(v) ~= "boolean" then fail(where .. "has_profile must be true or false") end
    if RANGE_KEYS[k] then
      if type(v) ~= "table" or (v.min == nil and v.max == nil) then fail(where .. k .. " must be { min = N, max = M }") end
      for bound, n in pairs(v) do
        if (bound ~= "min" and bound ~= "max") or type(n) ~= "number" or n < 0 or n ~= math.floor(n) then
          fail(where .. k .. " must be { min = N, max = M } with whole numbers, not " .. tostring(bound) .. " = " ..
               tostring(n))
        end
      end
      if v.min and v.max and v.min > v.max then fail(where .. k .. ": min is above max (nothing would match)") end
    end
    if k ~= "has_profile" and not RANGE_KEYS[k] then
      for _, s in ipairs(as_list(v)) do
        if type(s) ~= "string" then fail(where .. k .. " must be a name or a list of names") end
        if k == "app" and #s > M.MAX_APP_NAME then
          fail(where .. "app names are at most " .. M.MAX_APP_NAME .. " characters")
        end
      end
    end
  end
end

local index_rules, explore

-- Every error of a file is reported at once (an admin fixes them in one
-- pass), at most MAX_ERRORS with their lines, then a count.
M.MAX_ERRORS = 20

-- The errors found so far in one file: each with the line it names.
local function error_list()
  return { shown = {}, count = 0 }
end

-- Runs check(); when it fails, records the error with the line `needle()`
-- is on. Lines are looked up for the first MAX_ERRORS errors only: finding
-- lines for every rule would make checking quadratic in the file.
local function at_line(errors, text, path, needle, check)
  local ok, err = pcall(check)
  if ok then return end
  if getmetatable(err) ~= PolicyError then error(err, 0) end
  errors.count = errors.count + 1
  if errors.count > M.MAX_ERRORS then return end
  local line = needle and line_of(text, needle()) or 1
  errors.shown[#errors.shown + 1] = { line = line, message = path .. ":" .. line .. ": " .. err.message }
end

-- Fails with every recorded error, one per line in file order.
local function fail_with(errors)
  if errors.count == 0 then return end
  table.sort(errors.shown, function(a, b) return a.line < b.line end)
  local lines = {}
  for i, e in ipairs(errors.shown) do lines[i] = e.message end
  if errors.count > #lines then
    lines[#lines + 1] = "... and " .. (errors.count - #lines) .. " more errors (fix these first)"
  end
  fail(table.concat(lines, "\n"))
end

-- An explore rule (docs/autopilot.md): the applications it names get the
-- candidates in turn, `none` among them as the baseline; its action may
-- set everything but the strategy, for every candidate alike.
local function check_explore(r, where)
  local e = r.explore
  if type(e) ~= "table" then fail(where .. "explore must be a table { strategies = {...}, runs = N }") end
  for k in pairs(e) do
    if not EXPLORE_KEYS[k] then
      fail(where .. "unknown explore field '" .. tostring(k) .. "' (use strategies, runs, record)")
    end
  end
  if type(e.strategies) ~= "table" or #e.strategies == 0 then
    fail(where .. "explore.strategies must list the candidates, for example { \"compact\", \"scatter\" }")
  end
  local seen = {}
  for _, s in ipairs(e.strategies) do
    if type(s) ~= "string" or not M.STRATEGIES[s] then
      fail(where .. "explore: unknown strategy '" .. tostring(s) .. "' (" .. STRATEGY_NAMES .. ")")
    end
    if seen[s] then fail(where .. "explore: " .. s .. " is listed twice") end
    if M.NEEDS_PROFILE[s] and (r.action or {}).profile == nil then
      fail(where .. "explore: " .. s .. " needs a profile: add profile = \"%app\" to the action")
    end
    seen[s] = true
  end
  if e.runs ~= nil and (type(e.runs) ~= "number" or e.runs ~= math.floor(e.runs) or e.runs < 3 or
                        e.runs > M.MAX_EXPLORE_RUNS) then
    fail(where .. "explore.runs must be a whole number from 3 to " .. M.MAX_EXPLORE_RUNS .. " (runs per candidate)")
  end
  if e.record ~= nil then
    if type(e.record) ~= "number" or e.record ~= math.floor(e.record) or e.record < 1 or e.record > M.MAX_RECORD then
      fail(where .. "explore.record must be a whole number from 1 to " .. M.MAX_RECORD ..
           " (the first jobs, which record their MPI traffic)")
    end
    local guided = false
    for _, s in ipairs(e.strategies) do guided = guided or M.NEEDS_PROFILE[s] == true end
    if not guided then
      fail(where .. "explore.record: no candidate places by what it records: add a profile-guided strategy " ..
           "(gp, lpgp, gplp) to explore.strategies")
    end
  end
  local a = r.action or {}
  if a.strategy ~= nil then fail(where .. "an explore rule chooses the strategy: remove strategy from its action") end
  if a.mode == "enforce" then fail(where .. "an enforced rule never explores (mode = \"enforce\" with explore)") end
  local apps = (r.match or {}).app
  if apps == nil then fail(where .. "an explore rule names its applications: match = { app = ... }") end
  for _, app in ipairs(as_list(apps)) do
    if not M.valid_profile_name(app) or string.find(app, "@", 1, true) then
      fail(where .. "explore: application '" .. tostring(app) .. "' must be a store name (it is recorded on the job)")
    end
  end
  -- The candidates, baseline first.
  r._candidates = { "none" }
  for _, s in ipairs(e.strategies) do
    if s ~= "none" then r._candidates[#r._candidates + 1] = s end
  end
  if #r._candidates < 2 then fail(where .. "explore: give at least one strategy besides none (the baseline)") end
end

-- explore_rules: in a learned file, the policy's explore rules by name;
-- each learned rule then names the one it was learned by (learned_by).
local function check_rule(i, r, seen, explore_rules)
  local where = "rule " .. i .. (type(r) == "table" and type(r.name) == "string" and (" (" .. r.name .. ")") or "") .. ": "
  if type(r) ~= "table" then fail(where .. "a rule is { name = ..., match = {...}, action = {...} }") end
  if type(r.name) ~= "string" or r.name == "" then fail(where .. "every rule needs a name (it is logged and recorded on the job)") end
  if not string.match(r.name, "^[%w%._:%*%+%-]+$") or #r.name > 100 then
    fail(where .. "rule name '" .. r.name .. "' may hold only letters, digits and . _ : * + - (at most 100)")
  end
  if seen[r.name] then fail(where .. "two rules are named '" .. r.name .. "' (names must be unique)") end
  seen[r.name] = true
  for k in pairs(r) do
    if k ~= "name" and k ~= "match" and k ~= "action" and k ~= "explore" and not (explore_rules and k == "learned_by") then
      fail(where .. "unknown field '" .. tostring(k) .. "' (use name, match, action, explore)")
    end
  end
  if explore_rules then
    if r.explore ~= nil then fail(where .. "a learned rule does not explore") end
    local by = explore_rules[r.learned_by or ""]
    if not by then fail(where .. "learned_by must name an explore rule of the policy") end
    local app = (r.match or {}).app
    if type(app) ~= "string" or not by.match._apps[app] then
      fail(where .. "match.app must be one application its explore rule " .. r.learned_by .. " names")
    end
  end
  check_match(r.match or {}, where)
  check_action(r.action or {}, where)
  if r.explore ~= nil then
    check_explore(r, where)
  elseif not (r.action or {}).strategy and not (r.action or {}).profile then
    fail(where .. "the action sets nothing: give a strategy or a profile")
  end
end

-- Checks a policy table; returns it normalised. Errors name file and line,
-- every one of them (at most MAX_ERRORS shown), one per line.
function M.check(policy, text, path)
  local errors = error_list()
  for k in pairs(policy) do
    if not TOP_KEYS[k] then
      at_line(errors, text, path, function() return tostring(k) end, function()
        fail("unknown key '" .. tostring(k) .. "' (a policy has store, partitions and rules)")
      end)
    end
  end
  if policy.store ~= nil and type(policy.store) ~= "string" then
    at_line(errors, text, path, function() return "store" end, function() fail("store must be a directory path") end)
  end
  if policy.autopilot ~= nil and (type(policy.autopilot) ~= "string" or string.sub(policy.autopilot, 1, 1) ~= "/") then
    at_line(errors, text, path, function() return "autopilot" end,
            function() fail("autopilot must be an absolute directory path (where slurm-pin autopilot decide writes)") end)
  end
  policy.partitions = policy.partitions or {}
  if type(policy.partitions) ~= "table" then fail(path .. ": partitions must be a table of partition = action") end
  for name, a in pairs(policy.partitions) do
    if type(name) ~= "string" then
      at_line(errors, text, path, nil, function() fail("partitions: every key must be a partition name") end)
    else
      at_line(errors, text, path, function() return line_of(text, '["' .. name .. '"]') and '["' .. name .. '"]' or name .. " =" end,
              function()
                check_action(a, "partition " .. name .. ": ")
                if a.mode == "enforce" then fail("partition " .. name .. ": partition defaults are never enforced (use a rule)") end
              end)
    end
  end
  policy.rules = policy.rules or {}
  if type(policy.rules) ~= "table" then fail(path .. ": rules must be a list") end
  for k in pairs(policy.rules) do
    if type(k) ~= "number" or k < 1 or k > #policy.rules or k ~= math.floor(k) then
      fail(path .. ": rules must be a list { {...}, {...} }, not a table with key " .. tostring(k))
    end
  end
  local seen = {}
  for i, r in ipairs(policy.rules) do
    at_line(errors, text, path, function()
              local name = tostring(type(r) == "table" and r.name)
              return line_of(text, '"' .. name .. '"') and '"' .. name .. '"' or "'" .. name .. "'"
            end, function() check_rule(i, r, seen) end)
  end
  fail_with(errors)
  index_rules(policy)
  return policy
end

-- Which rules name which application: a job then looks only at the rules
-- naming one of its candidates, and at those naming none.
index_rules = function(policy)
  policy._by_app = {}
  for i, r in ipairs(policy.rules) do
    local apps = (r.match or {}).app
    if apps ~= nil then
      r.match._apps = {}
      for _, a in ipairs(as_list(apps)) do
        r.match._apps[a] = true
        local list = policy._by_app[a] or {}
        if list[#list] ~= i then list[#list + 1] = i end
        policy._by_app[a] = list
      end
    end
  end
end

-- ---- what the autopilot learned ----------------------------------------------

-- AUTOPILOT/learned.lua, written by `slurm-pin autopilot decide`: rules
-- (ordinary ones, decided from the evidence, each naming the explore rule
-- it was learned by) and candidates that proved slower than the baseline.
-- A learned application stops exploring while every rule before its
-- explore rule (an enforced one among them) still comes first.
M.LEARNED_FILE = "learned.lua"

local function check_stopped(stopped, explore_rules)
  if type(stopped) ~= "table" then fail("stopped must be a list of { rule = ..., app = ..., strategy = ... }") end
  for i, e in ipairs(stopped) do
    local where = "stopped " .. i .. ": "
    if type(e) ~= "table" or type(e.rule) ~= "string" or type(e.app) ~= "string" or type(e.strategy) ~= "string" then
      fail(where .. "each entry is { rule = \"NAME\", app = \"APP\", strategy = \"STRATEGY\" }")
    end
    if not explore_rules[e.rule] then fail(where .. "no explore rule is named '" .. e.rule .. "'") end
    if e.strategy == "none" then fail(where .. "the baseline none is never stopped") end
  end
end

-- Traffic profiles the autopilot assembled from recording jobs (explore.
-- record), each in the store of the user whose job recorded it:
-- { rule, app, user, threads } (job and ranks say where it came from).
-- Such a profile steers only that user's jobs of that rule and
-- application, until an admin promotes it to the site store.
local RECORDED_KEYS = { rule = true, app = true, user = true, threads = true, job = true, ranks = true }
local function check_recorded(recorded, explore_rules)
  if type(recorded) ~= "table" then fail("recorded must be a list of { rule = ..., app = ..., user = ..., threads = N }") end
  for i, e in ipairs(recorded) do
    local where = "recorded " .. i .. ": "
    if type(e) ~= "table" or type(e.rule) ~= "string" or type(e.app) ~= "string" or type(e.user) ~= "string" or
       type(e.threads) ~= "number" then
      fail(where .. "each entry is { rule = \"NAME\", app = \"APP\", user = \"USER\", threads = N }")
    end
    for k in pairs(e) do
      if not RECORDED_KEYS[k] then fail(where .. "unknown field '" .. tostring(k) .. "' (use rule, app, user, threads, job, ranks)") end
    end
    local r = explore_rules[e.rule]
    if not r then fail(where .. "no explore rule is named '" .. e.rule .. "'") end
    if not r.explore.record then fail(where .. "explore rule " .. e.rule .. " records no traffic (explore.record)") end
    if not r.match._apps[e.app] then fail(where .. "app must be one application its explore rule " .. e.rule .. " names") end
    if not string.match(e.user, "^[%w_][%w%._%-]*$") or #e.user > 64 then fail(where .. "user must be a user name") end
    if e.threads ~= math.floor(e.threads) or e.threads < 1 or e.threads > 4096 then
      fail(where .. "threads must be a whole number from 1 to 4096")
    end
  end
end

-- Merges the learned file's table into a checked policy; errors name the
-- learned file's lines.
function M.merge_learned(policy, learned, text, path)
  local errors = error_list()
  for k in pairs(learned) do
    if not LEARNED_KEYS[k] then
      at_line(errors, text, path, function() return tostring(k) end,
              function() fail("unknown key '" .. tostring(k) .. "' (a learned file has rules, stopped and recorded)") end)
    end
  end
  local seen, explore_rules = {}, {}
  for _, r in ipairs(policy.rules) do
    seen[r.name] = true
    if r.explore then explore_rules[r.name] = r end
  end
  local rules = learned.rules or {}
  if type(rules) ~= "table" then fail(path .. ": rules must be a list") end
  for i, r in ipairs(rules) do
    at_line(errors, text, path, function()
              local name = tostring(type(r) == "table" and r.name)
              return '"' .. name .. '"'
            end, function() check_rule(i, r, seen, explore_rules) end)
  end
  at_line(errors, text, path, function() return "stopped" end,
          function() check_stopped(learned.stopped or {}, explore_rules) end)
  at_line(errors, text, path, function() return "recorded" end,
          function() check_recorded(learned.recorded or {}, explore_rules) end)
  fail_with(errors)
  -- Each learned rule goes just before its explore rule and matches only
  -- jobs that rule matches (its other keys, an account or a QOS, carried
  -- over): it takes over the explore rule's jobs of its shape and no
  -- others, so a job the explore rule did not match still meets the rules
  -- after it, an enforced one among them.
  local merged = {}
  for _, r in ipairs(policy.rules) do
    if r.explore then
      for _, l in ipairs(rules) do
        if l.learned_by == r.name then
          for k, v in pairs(r.match) do
            if k ~= "app" and k ~= "_apps" and l.match[k] == nil then l.match[k] = v end
          end
          merged[#merged + 1] = l
        end
      end
    end
    merged[#merged + 1] = r
  end
  policy.rules = merged
  policy._stopped = {}
  for _, e in ipairs(learned.stopped or {}) do
    local key = e.rule .. "\n" .. e.app
    policy._stopped[key] = policy._stopped[key] or {}
    policy._stopped[key][e.strategy] = true
  end
  -- rule\napp -> user -> { [threads] = true }
  policy._recorded = {}
  for _, e in ipairs(learned.recorded or {}) do
    local key = e.rule .. "\n" .. e.app
    policy._recorded[key] = policy._recorded[key] or {}
    policy._recorded[key][e.user] = policy._recorded[key][e.user] or {}
    policy._recorded[key][e.user][e.threads] = true
  end
  policy._learned_rules = #rules
  index_rules(policy)
  return policy
end

-- Loads and checks a policy file under the load budget (slurm_pin_sandbox).
-- Returns the policy, or nil and one line. `text` may be given when the
-- caller read the file already.
-- read_learned(path): the autopilot's learned file's text, or nil when
-- there is none (plain io by default; slurmctld's adapter gives its own).
function M.load(path, text, read_learned)
  local err
  if not text then text, err = read_file(path) end
  if not text then return nil, path .. ": " .. tostring(err) .. " (create it, or fix the path)" end
  -- The admin's code runs under the load budget; the check is ours, linear
  -- in what the file built.
  local ok, result = sandbox.run(sandbox.LOAD, evaluate, text, path)
  if ok then ok, result = pcall(M.check, result, text, path) end
  if ok and result.autopilot then
    local lpath = result.autopilot .. "/" .. M.LEARNED_FILE
    local ltext = (read_learned or read_file)(lpath)
    if ltext then
      local policy = result
      ok, result = sandbox.run(sandbox.LOAD, evaluate, ltext, lpath)
      if ok then ok, result = pcall(M.merge_learned, policy, result, ltext, lpath) end
    end
  end
  if ok then
    local probe_err = M.probe(result, path)
    if probe_err then return nil, probe_err end
  end
  if not ok then
    if getmetatable(result) == PolicyError then return nil, result.message end
    if sandbox.is_budget_error(result) then
      return nil, path .. ": loading the policy went " .. tostring(result) .. " (a policy file only returns a table of rules)"
    end
    return nil, path .. ": " .. tostring(result)
  end
  return result, nil, text
end

-- decide() under the per-job budget, for `job` or what the function `job`
-- returns (so that reading the job's fields is counted too): the job, the
-- decision (nil: none), or nil, nil and an error naming the limit.
function M.decide_budgeted(policy, job, index, path)
  local ok, view, result = sandbox.run(sandbox.DECIDE, function()
    local j = type(job) == "function" and job() or job
    return j, M.decide(policy, j, index)
  end)
  if ok then return view, result end
  if sandbox.is_budget_error(view) then
    return nil, nil, (path or "the policy") .. ": deciding one job went " .. tostring(view)
  end
  return nil, nil, (path or "the policy") .. ": " .. tostring(view)
end

-- The dearest job a policy can meet (MAX_APPS candidates that no rule
-- names, every field set) decided under the per-job budget: nil when it
-- fits, else why the policy cannot be used. So no job's size can push a
-- decision past its budget once the policy is loaded.
function M.probe(policy, path)
  local apps = {}
  for i = 1, M.MAX_APPS do apps[i] = "slurm-pin-probe-" .. i end
  local job = { apps = apps, partition = "slurm-pin-probe", account = "probe", user = "probe", qos = "probe",
                nodes = 1, tasks = 1, threads = 1, user_choice = {} }
  local none = { has = function() return false end }
  local _, _, err = M.decide_budgeted(policy, job, none, path)
  if err then
    return err .. " for a job naming " .. M.MAX_APPS .. " applications (use fewer rules, or merge them)"
  end
  return nil
end

-- ---- the profile store index ----------------------------------------------------

-- STORE/.index (written by slurm-pin with every store change): its first line
-- carries a generation, so a job costs one small read until it changes.
local Index = {}
Index.__index = Index

-- Reads `path` whole, or its first `head` bytes: the plain one, for the
-- commands; inside slurmctld the adapter gives slurm_pin_io's.
local function plain_reader(path, head)
  local f, err = io.open(path, "r")
  if not f then return nil, err end
  local text = f:read(head or "*a")
  f:close()
  return text or ""
end

-- reader(path, head): the file's text (its first `head` bytes), or nil and
-- why; plain io by default.
function M.index(store, reader)
  return setmetatable({ store = store, generation = nil, apps = {}, reader = reader or plain_reader }, Index)
end

local HEADER_BYTES = 128  -- "slurm-pin-store-index 1 generation N\n" fits

function Index:refresh()
  local path = self.store .. "/.index"
  local head = self.reader(path, HEADER_BYTES)
  local generation = head and string.match(head, "^slurm%-pin%-store%-index 1 generation (%d+)\n")
  if not generation then
    self.generation, self.apps = nil, {}
    return false
  end
  if generation == self.generation then return true end
  local text = self.reader(path)
  if not text or string.match(text, "^slurm%-pin%-store%-index 1 generation (%d+)\n") ~= generation then
    return true  -- rewritten meanwhile, or unreadable now: keep what is known until the next job
  end
  local apps = {}
  for app, threads, version in string.gmatch(text, "\np (%S+) (%d+) (%d+)") do
    apps[app] = apps[app] or {}
    local t, v = tonumber(threads), tonumber(version)
    if (apps[app][t] or 0) < v then apps[app][t] = v end
  end
  self.apps, self.generation = apps, generation
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
  if type(want) ~= "table" then return want == have end
  for _, w in ipairs(want) do
    if w == have then return true end
  end
  return false
end

-- The first application candidate a rule's `app` accepts (and that has a
-- profile when the rule asks for one). Candidates come from users (job
-- and script names): one that becomes a profile name (%app) must be a
-- valid store name, or the rule does not match it.
local function matching_app(rule_match, job, index, names_profile)
  local names = rule_match.app ~= nil and (rule_match._apps or {}) or nil
  for _, app in ipairs(job.apps or {}) do
    local ok = names == nil or names[app] == true
    if ok and names_profile and not M.valid_profile_name(app) then ok = false end
    if ok and rule_match.has_profile ~= nil then
      ok = (index ~= nil and index:has(app, job.threads)) == rule_match.has_profile
    end
    if ok then return app end
  end
  if rule_match.app == nil and rule_match.has_profile ~= true and not names_profile then
    return job.apps and job.apps[1] or ""
  end
  return nil
end

local function rule_matches(m, job, index, names_profile)
  m = m or {}
  if m.partition and not matches_name(m.partition, job.partition) then return nil end
  if m.account and not matches_name(m.account, job.account) then return nil end
  if m.user and not matches_name(m.user, job.user) then return nil end
  if m.qos and not matches_name(m.qos, job.qos) then return nil end
  if m.nodes then
    local n = job.nodes or 1
    if (m.nodes.min and n < m.nodes.min) or (m.nodes.max and n > m.nodes.max) then return nil end
  end
  if m.tasks then
    -- The job's task count (-n): a job that gives none matches no task range.
    local n = job.tasks
    if not n or (m.tasks.min and n < m.tasks.min) or (m.tasks.max and n > m.tasks.max) then return nil end
  end
  if m.threads then
    -- The job's thread count (its OMP_NUM_THREADS, else --cpus-per-task):
    -- a job that says neither matches no thread range.
    local t = job.threads
    if not t or (m.threads.min and t < m.threads.min) or (m.threads.max and t > m.threads.max) then return nil end
  end
  return matching_app(m, job, index, names_profile)
end

local function settings_of(action, app)
  local d = {}
  for _, k in ipairs(SETTINGS) do d[k] = action[k] end
  if d.profile == "%app" then d.profile = app end
  d.env = action.env
  return d
end

-- ---- exploring -------------------------------------------------------------------

-- Jobs given a candidate so far, per explore rule and application, in this
-- slurmctld (kept across policy reloads; counted only for jobs submitted
-- with the candidate applied, M.took).
M.explored = {}

-- A whole number from a string, below 2^31 - 1 (no overflow in a double).
local function seed_of(text)
  local h = 7
  for i = 1, #text do h = (h * 31 + string.byte(text, i)) % 2147483647 end
  return h
end

-- The n-th job's candidate (n from 0): jobs come in blocks of one job per
-- candidate, each block in its own random order (a Park-Miller generator
-- seeded by the rule, the application and the block), so every candidate
-- meets the same mix of days, loads and neighbours.
function M.block_pick(candidates, key, n)
  local k = #candidates
  local block, at = math.floor(n / k), n % k
  local order = {}
  for i = 1, k do order[i] = candidates[i] end
  local x = (seed_of(key .. "\n" .. block) % 2147483646) + 1
  for i = k, 2, -1 do  -- Fisher-Yates
    x = (x * 16807) % 2147483647
    local j = (x % i) + 1
    order[i], order[j] = order[j], order[i]
  end
  return order[at + 1]
end

-- An explore decision given `strategy`: only a profile-guided candidate
-- takes the rule's profile (from the site store, or with store=user from
-- the user's own), so that each candidate means one placement throughout.
-- `record`: the job records its MPI traffic instead (it runs unpinned and
-- takes no candidate's turn). For the candidate picked here, and for the
-- one a changed job keeps (the adapter).
function M.give_candidate(decision, strategy, scope, record)
  local guided = M.NEEDS_PROFILE[strategy] == true and scope ~= nil
  decision.strategy = strategy
  decision.profile = guided and decision._rule_profile or nil
  decision.store = guided and scope == "user" and "user" or nil
  decision.record = record and decision.explore or nil
end

-- Where the job's profile of the rule's application comes from: "store"
-- (the site's, for everyone), "user" (the user's own recording, listed
-- in the learned file), or nil (none yet).
local function profile_scope(policy, key, profile, job, index)
  if not profile then return nil end
  if index and index:has(profile, job.threads) then return "store" end
  local mine = (policy._recorded or {})[key]
  mine = mine and job.user and mine[job.user]
  if mine and (job.threads == nil and next(mine) ~= nil or mine[job.threads or 0]) then return "user" end
  return nil
end

-- Jobs given the traffic recorder so far, per explore rule and
-- application (M.took).
M.recording = {}

explore = function(policy, rule, app, job, decision, index)
  local key = rule.name .. "\n" .. app
  local stopped = (policy._stopped or {})[key] or {}
  local scope = profile_scope(policy, key, decision.profile, job, index)
  decision._rule_profile = decision.profile
  decision.explore = app
  -- The shape, for grouping the outcomes (slurm-pin autopilot).
  decision.tasks, decision.threads = job.tasks, job.threads
  -- The first jobs record their traffic while no profile of it exists.
  if rule.explore.record and not scope and not (policy._recorded or {})[key] and
     (M.recording[key] or 0) < rule.explore.record then
    M.give_candidate(decision, "none", nil, true)
    decision._record_key = key
    return
  end
  -- Profile-guided candidates join once a profile is there; each set of
  -- candidates (and a user's own profile) has its blocks of its own.
  local candidates = {}
  for _, c in ipairs(rule._candidates) do
    if not stopped[c] and (scope or not M.NEEDS_PROFILE[c]) then candidates[#candidates + 1] = c end
  end
  local set = key .. "\n" .. table.concat(candidates, ",") .. (scope == "user" and "\n" .. job.user or "")
  M.give_candidate(decision, M.block_pick(candidates, set, M.explored[set] or 0), scope)
  decision._explore_key = set
end

-- A submitted job took its explore decision: the next job gets the next
-- candidate. Jobs whose user chose a placement do not count.
function M.took(decision)
  if not (decision and decision.applied) then return end
  if decision._record_key then
    M.recording[decision._record_key] = (M.recording[decision._record_key] or 0) + 1
  elseif decision._explore_key then
    M.explored[decision._explore_key] = (M.explored[decision._explore_key] or 0) + 1
  end
end

-- job: { apps = {...}, partition, account, user, qos, nodes, tasks, threads,
--        user_choice = { strategy, profile, mem, granularity, thread_binding } }
-- Returns { rule, mode, strategy, profile, mem, granularity, thread_binding,
-- env, applied } or nil
-- when nothing applies. `applied` is false when a default rule yields to the
-- user's own choice.
function M.decide(policy, job, index)
  -- Rules naming one of the job's candidates; others with an app list are
  -- skipped without comparing names.
  local naming = {}
  for _, app in ipairs(job.apps or {}) do
    for _, i in ipairs((policy._by_app or {})[app] or {}) do naming[i] = true end
  end
  local decision
  for i, r in ipairs(policy.rules) do
    local m, action = r.match or {}, r.action or {}  -- an explore rule may have no action
    local app = (m.app == nil or naming[i]) and rule_matches(m, job, index, action.profile == "%app")
    if app then
      decision = settings_of(action, app)
      decision.rule, decision.mode = r.name, action.mode or "default"
      if r.explore then explore(policy, r, app, job, decision, index) end
      -- The shape a range matched is recorded: Slurm's job record does not
      -- show tasks or threads again when the job is changed.
      if m.tasks then decision.tasks = job.tasks end
      if m.threads then decision.threads = job.threads end
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

-- "slurm-pin: rule=R mode=M strategy=S profile=P ... tasks=N threads=T
-- env.NAME=VALUE ..." for
-- admin_comment and SLURM_PIN_POLICY_DECISION (the task's copy): what the
-- SPANK plugin reads back (pin_policy_parse). Env in name order, so one
-- decision is always one text.
function M.format(decision)
  local parts = { "slurm-pin: rule=" .. decision.rule, "mode=" .. decision.mode }
  for _, k in ipairs(SETTINGS) do
    if decision[k] then parts[#parts + 1] = k .. "=" .. decision[k] end
  end
  for _, k in ipairs({ "tasks", "threads" }) do
    if decision[k] then parts[#parts + 1] = k .. "=" .. string.format("%d", decision[k]) end
  end
  if decision.store then parts[#parts + 1] = "store=" .. decision.store end
  if decision.explore then parts[#parts + 1] = "explore=" .. decision.explore end
  if decision.record then parts[#parts + 1] = "record=" .. decision.record end
  local names = {}
  for name in pairs(decision.env or {}) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local v = decision.env[name]
    if type(v) == "number" then v = string.format("%d", v) end
    parts[#parts + 1] = "env." .. name .. "=" .. encode_value(v)
  end
  return table.concat(parts, " ")
end

return M
