-- SPDX-License-Identifier: GPL-2.0-or-later
-- Unit tests of the policy engine and the job_submit adapter.
--   lua5.1 tests/lua/test_policy.lua   (also 5.3, 5.4)
local here = string.match(arg[0], "^(.*/)") or "./"
package.path = here .. "?.lua;" .. here .. "../../lua/?.lua;" .. package.path
local T = require("tap")
local engine = require("slurm_pin_policy")
local adapter = require("slurm_pin_job_submit")

local tmp = os.tmpname()
os.remove(tmp)
os.execute("mkdir -p " .. tmp)

local function write(name, text)
  local path = tmp .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local GOOD = [[
return {
  store = "STORE",
  partitions = {
    ["*"] = { strategy = "compact" },
    numa = { strategy = "scatter", mem = "local" },
  },
  rules = {
    { name = "bench-fixed", match = { account = "bench" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "lulesh", match = { app = "lulesh", partition = { "batch", "numa" } },
      action = { strategy = "gplp", profile = "lulesh@2", granularity = "core" } },
    { name = "big", match = { nodes = { min = 8 } }, action = { strategy = "scatter" } },
    { name = "profiled", match = { has_profile = true }, action = { strategy = "lpgp", profile = "%app" } },
  },
}
]]

local store = tmp .. "/store"
os.execute("mkdir -p " .. store)
local function write_index(generation, lines)
  write("store/.index", "slurm-pin-store-index 1 generation " .. generation .. "\n" .. table.concat(lines, "\n") .. "\n")
end
write_index(1, { "p stream 8 1", "p stream 8 3", "p stream 16 1" })
local good_path = write("good.lua", (string.gsub(GOOD, "STORE", store)))
local policy = assert(engine.load(good_path))
local index = engine.index(store)
index:refresh()

local function job(fields)
  local j = { apps = {}, partition = "debug", nodes = 1, user_choice = {} }
  for k, v in pairs(fields) do j[k] = v end
  return j
end

T.test("a valid policy loads", function()
  T.eq(#policy.rules, 4, "rules")
  T.eq(policy.store, store, "store")
end)

T.test("the first matching rule decides, in order", function()
  local d = engine.decide(policy, job({ apps = { "lulesh" }, account = "bench", partition = "batch" }), index)
  T.eq(d.rule, "bench-fixed")
  T.eq(d.mode, "enforce")
  d = engine.decide(policy, job({ apps = { "lulesh" }, partition = "batch" }), index)
  T.eq(d.rule, "lulesh")
  T.eq(d.strategy, "gplp")
  T.eq(d.profile, "lulesh@2")
end)

T.test("threads matches the job's thread count; a job that gives none matches no range", function()
  local p = assert(engine.load("t.lua", [[return { rules = {
    { name = "t4", match = { app = "x", threads = { min = 4, max = 4 } }, action = { strategy = "compact" } },
    { name = "t8up", match = { app = "x", threads = { min = 8 } }, action = { strategy = "scatter" } },
  } }]]))
  T.eq(engine.decide(p, job({ apps = { "x" }, threads = 4 }), index).rule, "t4")
  T.eq(engine.decide(p, job({ apps = { "x" }, threads = 16 }), index).rule, "t8up")
  T.eq(engine.decide(p, job({ apps = { "x" }, threads = 6 }), index), nil)
  T.eq(engine.decide(p, job({ apps = { "x" }, threads = false }), index), nil)
  local _, err = engine.load("b.lua", [[return { rules = { { name = "bad", match = { threads = { min = 8, max = 2 } },
    action = { strategy = "compact" } } } }]])
  T.contains(err, "threads: min is above max")
end)

T.test("tasks matches the job's task count; a job that gives none matches no range", function()
  local p = assert(engine.load("n.lua", [[return { rules = {
    { name = "n4", match = { app = "x", tasks = { min = 4, max = 4 } }, action = { strategy = "compact" } },
  } }]]))
  T.eq(engine.decide(p, job({ apps = { "x" }, tasks = 4 }), index).rule, "n4")
  T.eq(engine.decide(p, job({ apps = { "x" }, tasks = 8 }), index), nil)
  T.eq(engine.decide(p, job({ apps = { "x" } }), index), nil)
end)

T.test("an action carries the thread binding and the environment, recorded in one fixed order", function()
  local p = assert(engine.load("e.lua", [[return { rules = {
    { name = "measured", match = { app = "x" },
      action = { strategy = "compact", thread_binding = "preload",
                 env = { OMP_WAIT_POLICY = "passive", OMP_NUM_THREADS = 4, ODD = "a b=c%d" } } },
  } }]]))
  local d = engine.decide(p, job({ apps = { "x" } }), index)
  T.eq(d.thread_binding, "preload")
  -- A blank, '=' and '%' in a value never end its field nor start another.
  T.eq(engine.format(d), "slurm-pin: rule=measured mode=default strategy=compact thread_binding=preload " ..
       "env.ODD=a%20b%3Dc%25d env.OMP_NUM_THREADS=4 env.OMP_WAIT_POLICY=passive")
end)

T.test("env and thread_binding refuse what the nodes cannot set, naming the fix", function()
  local function err_of(action)
    local _, err = engine.load("bad.lua", "return { rules = { { name = 'r', match = { app = 'x' }, action = " .. action .. " } } }")
    return err or ""
  end
  T.contains(err_of("{ strategy = 'compact', thread_binding = 'always' }"), "thread_binding must be auto, env, preload or ompt")
  T.contains(err_of("{ strategy = 'compact', env = 'OMP_NUM_THREADS=4' }"), "env must be a table")
  T.contains(err_of("{ strategy = 'compact', env = { OMP_PLACES = '{0}' } }"), "'OMP_PLACES' is set by slurm-pin or Slurm")
  T.contains(err_of("{ strategy = 'compact', env = { LD_PRELOAD = 'x.so' } }"), "'LD_PRELOAD' is set by slurm-pin")
  T.contains(err_of("{ strategy = 'compact', env = { SLURM_CPU_BIND = 'none' } }"), "is set by slurm-pin or Slurm")
  T.contains(err_of("{ strategy = 'compact', env = { ['A B'] = '1' } }"), "'A B' is not a variable name")
  T.contains(err_of("{ strategy = 'compact', env = { X = 1.5 } }"), "X must be a whole number or printable text")
  T.contains(err_of("{ strategy = 'compact', env = { X = 'a\\nb' } }"), "X must be a whole number or printable text")
  T.contains(err_of("{ strategy = 'compact', env = { X = '" .. string.rep("a", 257) .. "' } }"), "at most 256 characters")
  T.contains(err_of("{ strategy = 'compact', env = { X = '" .. string.rep(" ", 86) .. "' } }"), "counts as 3")
  T.contains(err_of("{ strategy = 'compact', env = { A=1, B=1, C=1, D=1, E=1, F=1, G=1, H=1, I=1 } }"),
             "env sets at most 8 variables")
  -- The longest decision a rule can make fits the record the nodes read.
  local env = {}
  for i = 1, engine.MAX_ENV do
    env[#env + 1] = string.format("V%s%02d = '%s'", string.rep("N", engine.MAX_ENV_NAME - 3), i,
                                  string.rep(" ", math.floor(engine.MAX_ENV_VALUE / 3)))
  end
  local p = assert(engine.load("long.lua", "return { rules = { { name = '" .. string.rep("r", 100) ..
    "', match = {}, action = { strategy = 'lpgp', profile = '" .. string.rep("p", 64) .. "@999999', mem = 'interleave', " ..
    "granularity = 'core', thread_binding = 'preload', mode = 'enforce', env = { " .. table.concat(env, ", ") .. " } } } } }"))
  local text = engine.format(engine.decide(p, job({ apps = { "x" } }), index)) .. " applied=no"
  T.eq(#text < 4096, true, "the longest decision (" .. #text .. " bytes) fits the nodes' record")
end)

T.test("partition, account, nodes matches", function()
  T.eq(engine.decide(policy, job({ apps = { "lulesh" }, partition = "debug" }), index).rule, "partition:*")
  T.eq(engine.decide(policy, job({ apps = { "x" }, nodes = 8 }), index).rule, "big")
  T.eq(engine.decide(policy, job({ apps = { "x" }, nodes = 7 }), index).rule, "partition:*")
end)

T.test("has_profile uses the store index and the thread count; %app names the profile", function()
  local d = engine.decide(policy, job({ apps = { "stream" }, threads = 8 }), index)
  T.eq(d.rule, "profiled")
  T.eq(d.profile, "stream")
  T.eq(engine.decide(policy, job({ apps = { "stream" }, threads = 4 }), index).rule, "partition:*")
  T.eq(engine.decide(policy, job({ apps = { "stream" } }), index).rule, "profiled")  -- any count
  -- the second candidate application (e.g. from the batch script) matches too
  T.eq(engine.decide(policy, job({ apps = { "wrap", "stream" }, threads = 16 }), index).profile, "stream")
end)

T.test("partition defaults: by name, then '*'", function()
  local d = engine.decide(policy, job({ apps = { "x" }, partition = "numa" }), index)
  T.eq(d.rule, "partition:numa")
  T.eq(d.strategy, "scatter")
  T.eq(d.mem, "local")
  T.eq(engine.decide(policy, job({ apps = { "x" }, partition = "other" }), index).rule, "partition:*")
end)

T.test("a user's choice wins over a default rule and loses to an enforced one", function()
  local mine = { strategy = "scatter" }
  local d = engine.decide(policy, job({ apps = { "stream" }, user_choice = mine }), index)
  T.eq(d.rule, "profiled")
  T.eq(d.applied, false)
  d = engine.decide(policy, job({ apps = { "stream" }, account = "bench", user_choice = mine }), index)
  T.eq(d.applied, true)
  T.eq(d.strategy, "compact")
end)

T.test("no rule and no partition default: no decision", function()
  local p = assert(engine.load(write("bare.lua", "return { rules = { { name = 'a', match = { app = 'a' }, action = { strategy = 'compact' } } } }")))
  T.eq(engine.decide(p, job({ apps = { "b" } }), nil), nil)
end)

T.test("format is what the plugin parses", function()
  local d = engine.decide(policy, job({ apps = { "lulesh" }, partition = "batch" }), index)
  T.eq(engine.format(d), "slurm-pin: rule=lulesh mode=default strategy=gplp profile=lulesh@2 granularity=core")
end)

T.test("the index reloads only when its generation changes", function()
  write_index(2, { "p other 4 1" })
  index:refresh()
  T.eq(index:has("other", 4), true)
  T.eq(index:has("stream", 8), false)
  local idx = engine.index(tmp .. "/nostore")
  T.eq(idx:refresh(), false)
  T.eq(idx:has("other", 4), false)
  write_index(1, { "p stream 8 1", "p stream 8 3", "p stream 16 1" })
  index:refresh()
end)

local function load_error(text)
  local p, err = engine.load(write("bad.lua", text))
  T.eq(p, nil, "policy")
  return err
end

T.test("every error of a policy file at once, in file order, at most MAX_ERRORS with a count", function()
  local err = load_error("return {\n  colour = 'blue',\n  rules = {\n" ..
    "    { name = 'a', match = {}, action = { strategy = 'packed' } },\n" ..
    "    { name = 'b', match = {}, action = { strategy = 'compact' } },\n" ..
    "    { name = 'c', match = { colour = 'x' }, action = { strategy = 'compact' } },\n  },\n}\n")
  local lines = {}
  for line in string.gmatch(err, "[^\n]+") do lines[#lines + 1] = line end
  T.eq(#lines, 3, err)
  T.contains(lines[1], "bad.lua:2: unknown key 'colour'")
  T.contains(lines[2], "bad.lua:4: rule 1 (a): unknown strategy 'packed'")
  T.contains(lines[3], "bad.lua:6: rule 3 (c): unknown match 'colour'")
  local rules = {}
  for i = 1, 5000 do rules[i] = string.format("{ name = 'r%d', match = {}, action = { strategy = 'x' } },", i) end
  local t0 = os.clock()
  err = load_error("return { rules = {\n" .. table.concat(rules, "\n") .. "\n} }")
  T.eq(os.clock() - t0 < 5, true, "5000 bad rules checked in linear time")
  lines = {}
  for line in string.gmatch(err, "[^\n]+") do lines[#lines + 1] = line end
  T.eq(#lines, engine.MAX_ERRORS + 1)
  T.contains(lines[1], "bad.lua:2: rule 1 (r1)")
  T.contains(lines[#lines], "and " .. (5000 - engine.MAX_ERRORS) .. " more errors")
end)

T.test("broken policies: one line naming file, line and fix", function()
  local err = load_error("return {\n rules = {\n { name = 'x' \n")
  T.contains(err, tmp .. "/bad.lua:")
  T.contains(err, "fix the Lua syntax")
  err = load_error("return {\n  colour = 'blue',\n}\n")
  T.contains(err, "bad.lua:2: unknown key 'colour'")
  err = load_error("return { rules = {\n  { name = \"r1\", match = {}, action = { strategy = \"compact\" } },\n  { name = \"r2\", match = {}, action = { strategy = \"packed\" } },\n} }\n")
  T.contains(err, "bad.lua:3: rule 2 (r2): unknown strategy 'packed'")
  err = load_error("return { rules = { { name = 'r', match = {}, action = { strategy = 'lpgp' } } } }")
  T.contains(err, "strategy lpgp needs a profile: add profile")
  err = load_error("return { rules = { { name = 'r', match = { colour = 'x' }, action = { strategy = 'compact' } } } }")
  T.contains(err, "unknown match 'colour'")
  err = load_error("return { rules = { { name = 'r', match = {}, action = { strategy = 'compact' } }, { name = 'r', match = {}, action = { strategy = 'scatter' } } } }")
  T.contains(err, "two rules are named 'r'")
  err = load_error("return { rules = { { match = {}, action = { strategy = 'compact' } } } }")
  T.contains(err, "every rule needs a name")
  err = load_error("return { partitions = { p = { strategy = 'compact', mode = 'enforce' } } }")
  T.contains(err, "partition defaults are never enforced")
  err = load_error("return { rules = { { name = 'r', match = {}, action = { mode = 'always', strategy = 'compact' } } } }")
  T.contains(err, "mode must be 'default'")
  err = load_error("return 42")
  T.contains(err, "must `return { rules = {...} }`")
  err = load_error("os.execute('true') return {}")
  T.contains(err, "bad.lua")  -- no access to os: the file is data
  local p2, err2 = engine.load(tmp .. "/missing.lua")
  T.eq(p2, nil)
  T.contains(err2, "missing.lua")
end)

-- A job_desc as job_submit/lua shows it: spank_job_env is an array from 0.
local function job_desc(fields)
  local d = { name = "app", user_name = "alice", cpus_per_task = 65534, min_nodes = 4294967294,
              spank_job_env = {}, environment = {} }
  for k, v in pairs(fields) do d[k] = v end
  return d
end

T.test("the adapter reads user options, script launches and threads from job_desc", function()
  local v = adapter._job_view(job_desc({ name = "wrap", cpus_per_task = 8,
    spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=lpgp",
                      [1] = "_SLURM_SPANK_OPTION_slurm_pin_pin_profile=stream@2" },
    script = "#!/bin/sh\nmodule load x\nsrun -n 4 --cpu-bind=none ./bin/stream -s 3\nmpirun ../lulesh\n" }),
    { { name = "debug", flag_default = 1 } })
  T.eq(v.user_choice.strategy, "lpgp")
  T.eq(table.concat(v.apps, ","), "stream,wrap,lulesh")  -- distinct, in order
  T.eq(v.threads, 8)
  T.eq(v.partition, "debug")
  T.eq(v.nodes, 1)
  T.eq(v.batch, true)
  v = adapter._job_view(job_desc({ environment = { OMP_NUM_THREADS = "6" }, script = "x" }), {})
  T.eq(v.threads, 6)
  T.eq(v.tasks, nil)  -- -n not given
  v = adapter._job_view(job_desc({ num_tasks = 4,
    spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_thread_binding=env" } }), {})
  T.eq(v.tasks, 4)
  T.eq(v.user_choice.thread_binding, "env")
end)

T.test("admin_comment keeps what others wrote and replaces slurm-pin's part", function()
  T.eq(adapter._with_decision(nil, "slurm-pin: rule=a"), "slurm-pin: rule=a")
  T.eq(adapter._with_decision("site note | slurm-pin: rule=old", "slurm-pin: rule=a"), "site note | slurm-pin: rule=a")
end)

T.test("submit: every job gets its admin_comment, and nothing in its environment", function()
  local logs = {}
  adapter.setup({ file = good_path, recheck = 0,
                  log = { info = function(m) logs[#logs + 1] = m end, error = function(m) logs[#logs + 1] = "E " .. m end } })
  local batch = job_desc({ name = "stream", environment = { OMP_NUM_THREADS = "8" }, script = "#!/bin/sh\nsrun ./stream\n" })
  T.eq(adapter.submit(batch, {}, 0), 0)
  T.eq(batch.admin_comment, "slurm-pin: rule=profiled mode=default strategy=lpgp profile=stream")
  -- The node reads the decision (job_decision.h), never the environment:
  -- options there would pass for the user's own after a change of the job.
  T.eq(batch.environment["SLURM_SPANK__SLURM_SPANK_OPTION_slurm_pin_pin_strategy"], nil)
  T.eq(batch.environment["SLURM_PIN_POLICY_DECISION"], nil)
  local interactive = job_desc({ name = "stream", cpus_per_task = 8,
    spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=scatter" } })
  adapter.submit(interactive, {}, 0)
  T.eq(interactive.admin_comment, "slurm-pin: rule=profiled mode=default strategy=lpgp profile=stream applied=no")
  T.contains(logs[#logs], "rule profiled yields to the user's own choice")
end)

T.test("submit: a user whose options an enforced rule replaces is told, in one line", function()
  adapter.setup({ file = good_path, recheck = 0, log = { info = function() end, error = function() end } })
  local told = {}
  local saved = slurm
  slurm = { SUCCESS = 0, ERROR = -1, log_user = function(fmt, m) told[#told + 1] = string.format(fmt, m) end }
  local d = job_desc({ name = "x", account = "bench", cpus_per_task = 2,
    spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=scatter" } })
  T.eq(adapter.submit(d, {}, 0), 0)
  T.eq(#told, 1)
  T.eq(told[1], "slurm-pin: the site policy's rule bench-fixed is enforced for this job: " ..
                "--pin-strategy='scatter' becomes 'compact'")
  -- The rule's own strategy, or a default rule: nothing to tell.
  told = {}
  d = job_desc({ name = "x", account = "bench", spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=compact" } })
  adapter.submit(d, {}, 0)
  d = job_desc({ name = "stream", spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=scatter" } })
  adapter.submit(d, {}, 0)
  T.eq(#told, 0)
  slurm = saved
end)

T.test("a missing policy file is one error, however many jobs and looks", function()
  local logs = {}
  adapter.setup({ file = tmp .. "/absent.lua", recheck = 0,
                  log = { info = function() end, error = function(m) logs[#logs + 1] = m end } })
  for _ = 1, 3 do adapter.submit(job_desc({}), {}, 0) end
  T.eq(#logs, 1, "errors logged")
  T.contains(logs[1], "absent.lua")
end)

T.test("a broken policy never blocks a job: it passes unchanged, one error logged", function()
  local logs = {}
  local path = write("broken.lua", "return { rules = { { name = 'r', action = { strategy = 'nope' } } } }")
  adapter.setup({ file = path, recheck = 0, log = { info = function() end, error = function(m) logs[#logs + 1] = m end } })
  local d = job_desc({ script = "x" })
  adapter.submit(d, {}, 0)
  adapter.submit(job_desc({}), {}, 0)
  T.eq(d.admin_comment, nil)
  T.eq(d.environment["SLURM_PIN_POLICY_DECISION"], nil)
  T.eq(#logs, 1, "errors logged")
  T.contains(logs[1], "policy disabled, jobs pass unchanged: " .. path .. ":1: rule 1 (r): unknown strategy 'nope'")
end)

-- Loads `text` as a policy: the policy, or nil and the error, and the time taken.
local function load_text(name, text)
  local path = write(name, text)
  local t0 = os.clock()
  local p, err = engine.load(path)
  return p, err, os.clock() - t0, path
end

T.test("an endless loop in the policy file stops at the instruction budget, quickly", function()
  local p, err, took, path = load_text("loop.lua", "while true do end")
  T.eq(p, nil)
  T.contains(err, path .. ": loading the policy went over its budget of 1000000 instructions")
  if took > 5 then error("took " .. took .. " s") end
  -- The same state loads a fixed file afterwards: no hook is left behind.
  T.eq(debug.gethook(), nil, "hook")
  T.eq(#assert(engine.load(good_path)).rules, 4)
end)

T.test("memory bombs stop at the memory budget before allocating", function()
  local before = collectgarbage("count")
  for _, bomb in ipairs({ 'return { store = ("x"):rep(2^30) }',
                          'local s = "x" for i = 1, 40 do s = s .. s end return {}',
                          'local s = ("x"):rep(2^20) return { store = ("%s%s%s%s"):format(s, s, s, s):rep(64) }',
                          'local t = {} for i = 1, 1e9 do t[i] = { i } end return {}' }) do
    local p, err = load_text("bomb.lua", bomb)
    T.eq(p, nil, bomb)
    T.contains(err, "loading the policy went over its", bomb)
  end
  if collectgarbage("count") - before > 128 * 1024 then error("memory kept: " .. (collectgarbage("count") - before)) end
  T.eq(getmetatable("").__index, string, "string methods restored")
end)

T.test("no string method runs long inside one C call: no patterns, plain find bounded", function()
  -- Before: the first took minutes inside string.match, where no hook runs.
  local a = '("a"):rep(3000)'
  for _, bomb in ipairs({ 'local x = ' .. a .. ':match("(.-)a(.-)a(.-)b") return {}',
                          'for w in ' .. a .. ':gmatch("(.-)a(.-)b") do end return {}',
                          'local x = ' .. a .. ':find("a*a*a*b") return {}' }) do
    local p, err, took = load_text("pattern.lua", bomb)
    T.eq(p, nil, bomb)
    T.contains(err, "string patterns are not available in a policy file", bomb)
    if took > 1 then error(bomb .. " took " .. took .. " s") end
  end
  local p, err, took = load_text("find.lua", 'local s, n = ("a"):rep(2^20), ("a"):rep(2^12) .. "b" ' ..
                                             'return { store = s:find(n, 1, true) }')
  T.eq(p, nil)
  T.contains(err, "over its budget of 16777216 byte comparisons in one find")
  if took > 1 then error("plain find took " .. took .. " s") end
  -- What a policy may still do with strings, and the string library is back afterwards.
  p, err = load_text("strings.lua", 'local s = "lammps-gpu" ' ..
    'return { rules = { { name = s:sub(1, 6):upper():lower(), match = { app = s:sub(1, 6) }, ' ..
    'action = { strategy = (s:find("-gpu", 1, true) and s:find("gpu") == 8 and "scatter" or "compact") } } } }')
  T.eq(err, nil)
  T.eq(p.rules[1].action.strategy, "scatter")
  T.eq(("abc"):match("b"), "b", "patterns outside the sandbox")
end)

T.test("precompiled bytecode is refused", function()
  local f = assert(io.open(tmp .. "/bytecode.luac", "wb"))
  f:write(string.dump(function() return { rules = {} } end))
  f:close()
  local p, err = engine.load(tmp .. "/bytecode.luac")
  T.eq(p, nil)
  T.contains(err, "precompiled Lua bytecode is not accepted")
end)

T.test("policy check validates the type of every documented field", function()
  local cases = {
    { 'return { rules = { { name = "r", match = { nodes = { min = "a" } }, action = { strategy = "compact" } } } }', "whole numbers" },
    { 'return { rules = { { name = "r", match = { nodes = { min = 4, max = 2 } }, action = { strategy = "compact" } } } }', "min is above max" },
    { 'return { rules = { { name = "r", match = { app = 3 } , action = { strategy = "compact" } } } }', "app must be a name" },
    { 'return { rules = { { name = "r", match = {}, action = { strategy = 7 } } } }', "strategy must be a string" },
    { 'return { rules = { { name = "r", match = {}, action = { strategy = "compact", mode = true } } } }', "mode must be a string" },
    { 'return { rules = { { name = "a b", match = {}, action = { strategy = "compact" } } } }', "may hold only letters" },
    { 'return { rules = { x = { name = "r", action = { strategy = "compact" } } } }', "rules must be a list" },
    { 'return { partitions = "numa" }', "partitions must be a table" },
    { 'return { store = 5 }', "store must be a directory path" },
  }
  for _, c in ipairs(cases) do
    local p, err = load_text("types.lua", c[1])
    T.eq(p, nil, c[1])
    T.contains(err, c[2], c[1])
  end
end)

T.test("a script of 20,000 launcher lines is decided within budget; the policy stays in force", function()
  local logs = {}
  adapter.setup({ file = good_path, recheck = 0, log = { info = function(m) logs[#logs + 1] = m end,
                                                     error = function(m) logs[#logs + 1] = "E " .. m end } })
  local lines = {}
  for i = 1, 20000 do lines[i] = "srun ./app" .. i end
  local d = job_desc({ name = "n", script = table.concat(lines, "\n") })
  local t0 = os.clock()
  T.eq(adapter.submit(d, {}, 0), 0)
  if os.clock() - t0 > 0.5 then error("took " .. (os.clock() - t0) .. " s") end
  T.eq(d.admin_comment, "slurm-pin: rule=partition:* mode=default strategy=compact")
  local v = adapter._job_view(d, {})
  T.eq(#v.apps, engine.MAX_APPS, "candidates bounded")
  -- The next job still meets the enforced rule.
  local e = job_desc({ name = "x", account = "bench", spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=scatter" } })
  adapter.submit(e, {}, 0)
  T.contains(e.admin_comment, "rule=bench-fixed mode=enforce strategy=compact")
  for _, line in ipairs(logs) do T.eq(string.sub(line, 1, 2) ~= "E ", true, line) end
  -- Lines that merely mention srun, and long option lists, are not candidates.
  local w = adapter._job_view(job_desc({ script = "echo srun ./no\n  srun -n 2 --x=1 ./yes\n\tmpiexec -np 4 ../b/c\n" ..
                                                  "mpirun --map-by core --bind-to none -x A ./d\nsrun --ntasks 8 e\n" ..
                                                  "mpirun.openmpi -np 2 f\nmpiexec.hydra -n 2 g\nsrunx h\nsrun2 i\n" }), {})
  T.eq(table.concat(w.apps, ","), "app,yes,c,d,e,f,g")
end)

T.test("a script's cost is bounded by the policy's constants, not by its size or its words", function()
  adapter.setup({ file = good_path, recheck = 0, log = { info = function() end, error = function() end } })
  -- A 4 MB word ending in '/' (the unanchored basename pattern was
  -- quadratic in it), 4 MB of spaces after a newline, 4 MB without a launcher.
  local scripts = { "srun " .. string.rep("a", 4 * 1024 * 1024) .. "/\n",
                    "\n" .. string.rep(" ", 4 * 1024 * 1024) .. "x",
                    -- A launcher-like first word with no blank after it
                    -- (two classes that overlap before the blank would take
                    -- quadratic time on it).
                    "mpirun" .. string.rep("a", 4 * 1024 * 1024),
                    string.rep("echo no launcher on this line\n", math.floor(4 * 1024 * 1024 / 30)) }
  for i, script in ipairs(scripts) do
    local d = job_desc({ name = "n", script = script })
    local t0 = os.clock()
    T.eq(adapter.submit(d, {}, 0), 0, "script " .. i)
    if os.clock() - t0 > 0.2 then error("script " .. i .. " took " .. (os.clock() - t0) .. " s") end
  end
  -- Only the script's first MAX_SCRIPT_BYTES are read; no word longer than
  -- a path is a program, no name longer than a rule can hold a candidate.
  local late = string.rep("#\n", adapter.MAX_SCRIPT_BYTES) .. "srun ./late\n"
  local v = adapter._job_view(job_desc({ name = "n", script = "srun ./early\n" .. late }), {})
  T.eq(table.concat(v.apps, ","), "n,early")
  local long = string.rep("b", engine.MAX_APP_NAME + 1)
  v = adapter._job_view(job_desc({ name = "n", script = "srun ./" .. long .. "\nsrun /x/" .. string.rep("c", 255) ..
                                                   "\nsrun /dir/\nsrun ./ok\n" }), {})
  T.eq(table.concat(v.apps, ","), "n," .. string.rep("c", 255) .. ",ok")
  local p, err = load_text("long_app.lua", 'return { rules = { { name = "r", match = { app = "' .. long ..
                           '" }, action = { strategy = "compact" } } } }')
  T.eq(p, nil)
  T.contains(err, "at most " .. engine.MAX_APP_NAME)
end)

T.test("a policy too dear to decide one job is refused when it loads, naming the limit", function()
  local rules = {}
  for i = 1, 30000 do
    rules[#rules + 1] = string.format('{ name = "r%d", match = { has_profile = true, partition = "p%d" }, action = { strategy = "compact" } },', i, i)
  end
  local p, err = engine.load(write("dear.lua", "return { rules = {\n" .. table.concat(rules, "\n") .. "\n} }"))
  T.eq(p, nil)
  T.contains(err, "dear.lua")
  T.contains(err, "over its budget")
end)

T.test("one job the policy cannot decide is refused alone; the policy stays in force", function()
  local logs = {}
  adapter.setup({ file = good_path, recheck = 0, log = { info = function() end, error = function(m) logs[#logs + 1] = m end } })
  -- A job record whose fields cost the sandbox an error (a field that
  -- raises when read), as a stand-in for any failure deciding one job.
  local bad = setmetatable(job_desc({ name = "x" }), { __index = function(_, k) if k == "partition" then error("boom") end end })
  bad.partition = nil
  T.eq(adapter.submit(bad, {}, 0), -1)
  T.eq(#logs, 1)
  T.contains(logs[1], "refused")
  local good = job_desc({ name = "x", account = "bench" })
  T.eq(adapter.submit(good, {}, 0), 0)
  T.contains(good.admin_comment, "rule=bench-fixed")
end)

T.test("changing a job decides it again: a move to another partition or account meets its rules", function()
  local logs = {}
  adapter.setup({ file = good_path, recheck = 0, log = { info = function() end, error = function(m) logs[#logs + 1] = m end } })
  local rec = { job_id = 7, name = "x", partition = "debug", account = "users", user_name = "alice",
                spank_job_env = { [0] = "_SLURM_SPANK_OPTION_slurm_pin_pin_strategy=scatter" },
                admin_comment = "site note | slurm-pin: rule=partition:* mode=default strategy=compact applied=no" }
  -- A user may make a change that keeps the decision; one that changes it
  -- is refused (only administrators may record a new one).
  local same = { partition = "other" }
  T.eq(adapter.modify(same, rec, {}, 1000), 0)
  T.eq(same.admin_comment, nil)
  local mine = { account = "bench" }
  T.eq(adapter.modify(mine, rec, {}, 1000), -1)
  T.contains(logs[#logs], "change by uid '1000' refused: it would change the site policy's decision")
  T.eq(adapter.modify({ time_limit = 5 }, rec, {}, 1000), 0)  -- nothing a rule matches
  local change = { account = "bench" }
  T.eq(adapter.modify(change, rec, {}, 0), 0)
  T.eq(change.admin_comment, "site note | slurm-pin: rule=bench-fixed mode=enforce strategy=compact")
  change = { partition = "numa" }
  T.eq(adapter.modify(change, rec, {}, 0), 0)
  T.eq(change.admin_comment, "site note | slurm-pin: rule=partition:numa mode=default strategy=scatter mem=local applied=no")
  -- A change of the comment itself keeps the decision last, and drops
  -- anything else that looks like one.
  change = { admin_comment = "user note: slurm-pin: rule=evil mode=enforce strategy=none | more" }
  T.eq(adapter.modify(change, rec, {}, 0), 0)
  T.eq(change.admin_comment, "more | slurm-pin: rule=partition:* mode=default strategy=compact applied=no")
end)

T.test("a rule matched on tasks and threads records them: a later change decides on them again", function()
  local path = write("shape.lua", [[return { rules = {
    { name = "shaped", match = { app = "x", tasks = { min = 2, max = 2 }, threads = { min = 4, max = 4 } },
      action = { strategy = "compact", env = { OMP_NUM_THREADS = 4 } } } } }]])
  adapter.setup({ file = path, recheck = 0, log = { info = function() end, error = function() end } })
  local d = job_desc({ name = "x", num_tasks = 2, cpus_per_task = 4 })
  T.eq(adapter.submit(d, {}, 0), 0)
  T.eq(d.admin_comment, "slurm-pin: rule=shaped mode=default strategy=compact tasks=2 threads=4 env.OMP_NUM_THREADS=4")
  -- Slurm's job record shows neither: the recorded shape stands for them,
  -- so a user's change that keeps the decision passes.
  local rec = { job_id = 8, name = "x", partition = "debug", user_name = "alice", admin_comment = d.admin_comment }
  T.eq(adapter.modify({ name = "x" }, rec, {}, 1000), 0)
  T.eq(adapter.modify({ name = "y" }, rec, {}, 1000), -1)
  local change = { num_tasks = 3 }
  T.eq(adapter.modify(change, rec, {}, 0), 0)  -- an administrator's: the rule no longer matches
  T.eq(change.admin_comment, "")  -- no decision any more
end)

T.test("a hung file system costs slurm_pin_io one timeout, then nothing until the read finishes", function()
  local build = assert(os.getenv("SLURM_PIN_BUILD"), "SLURM_PIN_BUILD (the build directory) is not set")
  os.execute("mkdir -p " .. tmp .. "/hung && cp " .. good_path .. " " .. tmp .. "/hung/policy.lua")
  local script = write("hung.lua", [[
local io_module = require("slurm_pin_io")
local clock = function() local f = io.popen("date +%s.%N") local t = tonumber(f:read("*a")) f:close() return t end
local path = arg[1]
local t0 = clock()
local text, err = io_module.read(path, 1048576, 300)
local t1 = clock()
local text2, err2 = io_module.read(path, 1048576, 300)
local t2 = clock()
os.execute("sleep 4")
local text3 = io_module.read(path, 1048576, 5000)
print(string.format("%s|%.2f|%s|%.2f|%s", tostring(err), t1 - t0, tostring(err2), t2 - t1, tostring(text3 ~= nil)))
]])
  local p = io.popen("HUNG_OPEN_SECONDS=3 LD_PRELOAD=" .. build .. "/lib/hung_open.so " .. (arg[-1] or "lua5.1") ..
                     " " .. script .. " " .. tmp .. "/hung/policy.lua")
  local out = p:read("*a")
  p:close()
  local err, took, err2, took2, later = string.match(out, "^(.-)|([%d.]+)|(.-)|([%d.]+)|(%a+)")
  T.contains(tostring(err), "not read within 300 ms")
  T.eq(tonumber(took) < 1.5, true, "first read gave up in time: " .. tostring(took))
  T.contains(tostring(err2), "an earlier read has not finished yet")
  T.eq(tonumber(took2) < 0.5, true, "second read at once: " .. tostring(took2))
  T.eq(later, "true", "read again once the file system answers")
end)

T.test("a job naming partitions the policy decides differently is refused; the same decision passes", function()
  adapter.setup({ file = good_path, recheck = 0, log = { info = function() end, error = function() end } })
  T.eq(adapter.submit(job_desc({ name = "x", partition = "debug,numa" }), {}, 0), -1)
  local d = job_desc({ name = "x", partition = "debug,other" })
  T.eq(adapter.submit(d, {}, 0), 0)
  T.eq(d.admin_comment, "slurm-pin: rule=partition:* mode=default strategy=compact")
end)

T.test("the policy file and the store index are read by slurm_pin_io: a FIFO or an untrusted file never blocks", function()
  local io_module = require("slurm_pin_io")
  local fifo = tmp .. "/fifo"
  os.execute("mkfifo " .. fifo)
  local t0 = os.time()
  local text, err = io_module.read(fifo, 1024, 200)
  T.eq(text, nil)
  T.contains(err, "not a regular file")
  T.eq(os.time() - t0 < 3, true, "fast")
  os.execute("chmod g+w " .. good_path)
  text, err = io_module.read(good_path, 1048576, 200)
  T.eq(text, nil)
  T.contains(err, "writable by group or others")
  os.execute("chmod g-w " .. good_path)
  os.execute("ln -sf " .. good_path .. " " .. tmp .. "/link.lua")
  text, err = io_module.read(tmp .. "/link.lua", 1048576, 200)
  T.eq(text, nil)
  T.contains(err, "symbolic link")
  T.eq(io_module.read(good_path, 1048576, 200), (io.open(good_path):read("*a")))
  T.eq(io_module.read(good_path, 1048576, 200, 6), "return")
  text, err = io_module.read(good_path, 10, 200)
  T.contains(err, "larger than")
  -- The adapter with a FIFO as the store's index: jobs are decided as
  -- with no index, at once.
  local fifo_store = tmp .. "/fifostore"
  os.execute("mkdir -p " .. fifo_store .. " && mkfifo " .. fifo_store .. "/.index")
  local path = write("fifo.lua", (string.gsub(GOOD, "STORE", fifo_store)))
  adapter.setup({ file = path, recheck = 0, log = { info = function() end, error = function() end } })
  t0 = os.time()
  local d = job_desc({ name = "stream", cpus_per_task = 8 })
  T.eq(adapter.submit(d, {}, 0), 0)
  T.eq(os.time() - t0 < 3, true, "fast")
  T.eq(d.admin_comment, "slurm-pin: rule=partition:* mode=default strategy=compact")
end)

T.test("hostile job names: %app refuses names that are not store names, logs escape them", function()
  local logs = {}
  adapter.setup({ file = good_path, recheck = 0, log = { info = function(m) logs[#logs + 1] = m end, error = function(m) logs[#logs + 1] = m end } })
  write_index(2, { "p stream 8 1", "p foo mode=enforce strategy=none rule=evil 8 1" })
  local d = job_desc({ name = "foo mode=enforce strategy=none rule=evil", cpus_per_task = 8 })
  adapter.submit(d, {}, 0)
  T.eq(string.find(d.admin_comment or "", "evil", 1, true), nil, "no forged field")
  local e = job_desc({ name = "a\nslurmctld: forged line", cpus_per_task = 8 })
  adapter.submit(e, {}, 0)
  for _, line in ipairs(logs) do
    if string.find(line, "\n", 1, true) then error("a log line holds a newline: " .. line) end
  end
  T.contains(logs[#logs], "job 'a\\010slurmctld: forged line'")
  T.eq(adapter._shown("x'y"), "'x\\039y'")
end)

-- ---- exploring (docs/autopilot.md) ----------------------------------------------

-- The error loading a policy of the one rule `rule` (Lua text) gives.
local function rule_error(rule)
  local _, err = engine.load(write("bad_rule.lua", "return { rules = { " .. rule .. " } }"))
  return err or ""
end

local EXPLORE = [[
return {
  autopilot = "AUTOPILOT",
  rules = {
    { name = "bench-fixed", match = { account = "bench" }, action = { strategy = "compact", mode = "enforce" } },
    { name = "learn-busy", match = { app = "busy_pair" }, action = { thread_binding = "auto" },
      explore = { strategies = { "compact", "scatter" }, runs = 8 } },
  },
}
]]
local autopilot = tmp .. "/autopilot"
os.execute("mkdir -p " .. autopilot)
local explore_path = write("explore.lua", (string.gsub(EXPLORE, "AUTOPILOT", autopilot)))

T.test("an explore rule gives every candidate one job per block, in a random order per block", function()
  local p = assert(engine.load(explore_path))
  local counts, orders = { none = 0, compact = 0, scatter = 0 }, {}
  for block = 1, 20 do
    local seen = {}
    for _ = 1, 3 do
      local d = engine.decide(p, job({ apps = { "busy_pair" }, tasks = 1, threads = 4 }))
      T.eq(d.applied, true)
      T.eq(seen[d.strategy], nil, "each candidate once in block " .. block)
      seen[d.strategy] = true
      counts[d.strategy] = counts[d.strategy] + 1
      orders[#orders + 1] = d.strategy
      engine.took(d)
    end
  end
  T.eq(counts.none .. " " .. counts.compact .. " " .. counts.scatter, "20 20 20")
  local firsts = {}
  for b = 0, 19 do firsts[orders[3 * b + 1]] = true end
  T.eq(firsts.none and firsts.compact and firsts.scatter, true, "each candidate leads some block")
end)

T.test("an explore decision records its application and shape; a user's choice does not count", function()
  local p = assert(engine.load(explore_path))
  local j = job({ apps = { "busy_pair" }, tasks = 2, threads = 4 })
  local d = engine.decide(p, j)
  T.contains(engine.format(d), " tasks=2 threads=4 explore=busy_pair")
  T.contains(engine.format(d), "thread_binding=auto")
  local before = engine.decide(p, j).strategy
  local mine = engine.decide(p, job({ apps = { "busy_pair" }, tasks = 2, threads = 4, user_choice = { strategy = "compact" } }))
  T.eq(mine.applied, false)
  engine.took(mine)
  T.eq(engine.decide(p, j).strategy, before, "the turn is not taken")
  -- An enforced rule before it still wins.
  T.eq(engine.decide(p, job({ apps = { "busy_pair" }, account = "bench" })).rule, "bench-fixed")
end)

T.test("explore rules are checked", function()
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, explore = { strategies = { "packed" } } }]]), "unknown strategy 'packed'")
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, explore = { strategies = { "none" } } }]]), "besides none")
  T.contains(rule_error([[{ name = "e", explore = { strategies = { "compact" } } }]]), "names its applications")
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, action = { mode = "enforce" }, explore = { strategies = { "compact" } } }]]),
             "never explores")
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, action = { strategy = "scatter" }, explore = { strategies = { "compact" } } }]]),
             "chooses the strategy")
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, explore = { strategies = { "lpgp" } } }]]), "needs a profile")
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, explore = { strategies = { "compact" }, runs = 2 } }]]), "from 3 to")
  T.contains(rule_error([[{ name = "e", match = { app = "a b" }, explore = { strategies = { "compact" } } }]]), "store name")
end)

T.test("the learned file's rules come before their explore rule; stopped candidates are not given", function()
  write("autopilot/learned.lua", [[
return {
  rules = {
    { name = "autopilot-busy_pair-1", learned_by = "learn-busy", match = { app = "busy_pair", threads = { min = 4, max = 4 } },
      action = { strategy = "scatter", thread_binding = "auto" } },
  },
  stopped = { { rule = "learn-busy", app = "busy_pair", strategy = "compact" } },
}
]])
  local p = assert(engine.load(explore_path))
  T.eq(p.rules[2].name, "autopilot-busy_pair-1")
  T.eq(engine.decide(p, job({ apps = { "busy_pair" }, account = "bench", threads = 4 })).rule, "bench-fixed")
  T.eq(engine.decide(p, job({ apps = { "busy_pair" }, threads = 4 })).strategy, "scatter")
  for _ = 1, 6 do
    local d = engine.decide(p, job({ apps = { "busy_pair" }, threads = 2 }))
    T.eq(d.rule, "learn-busy")
    if d.strategy == "compact" then error("a stopped candidate was given") end
    engine.took(d)
  end
  write("autopilot/learned.lua", [[return { stopped = { { rule = "nobody", app = "x", strategy = "compact" } } }]])
  local _, err = engine.load(explore_path)
  T.contains(err, "learned.lua:1: stopped 1: no explore rule is named 'nobody'")
  write("autopilot/learned.lua", [[return { rules = { { name = "l", match = { app = "busy_pair" }, action = { strategy = "compact" } } } }]])
  _, err = engine.load(explore_path)
  T.contains(err, "learned_by must name an explore rule")
  write("autopilot/learned.lua", [[return { rules = { { name = "l", learned_by = "learn-busy", match = { app = "other" },
    action = { strategy = "compact" } } } }]])
  _, err = engine.load(explore_path)
  T.contains(err, "match.app must be one application its explore rule learn-busy names")
  os.remove(autopilot .. "/learned.lua")
end)

T.test("slurmctld's adapter counts explored jobs at submission and follows the learned file as it changes", function()
  local errors = {}
  adapter.setup({ file = explore_path, recheck = 0,
                  log = { info = function() end, error = function(m) errors[#errors + 1] = m end } })
  for k in pairs(engine.explored) do engine.explored[k] = nil end  -- a new block starts
  local seen = {}
  for _ = 1, 6 do
    local d = job_desc({ name = "busy_pair", cpus_per_task = 4 })
    T.eq(adapter.submit(d, {}, 0), 0)
    T.contains(d.admin_comment, "rule=learn-busy mode=default")
    local s = string.match(d.admin_comment, " strategy=(%S+)")
    seen[s] = (seen[s] or 0) + 1
  end
  T.eq(seen.none .. " " .. seen.compact .. " " .. seen.scatter, "2 2 2")
  write("autopilot/learned.lua", [[
return { rules = { { name = "autopilot-busy_pair-1", learned_by = "learn-busy", match = { app = "busy_pair" },
                     action = { strategy = "scatter" } } } }
]])
  local d = job_desc({ name = "busy_pair", cpus_per_task = 4 })
  adapter.submit(d, {}, 0)
  T.eq(d.admin_comment, "slurm-pin: rule=autopilot-busy_pair-1 mode=default strategy=scatter")
  os.remove(autopilot .. "/learned.lua")
  d = job_desc({ name = "busy_pair", cpus_per_task = 4 })
  adapter.submit(d, {}, 0)
  T.contains(d.admin_comment, "rule=learn-busy")
  T.eq(#errors, 0, "no error logged")
end)

T.test("a changed job keeps its candidate whole, the rule's profile with it, whatever the next job would get", function()
  local path = write("explore_profile.lua", [[
return { rules = { { name = "learn-prof", match = { app = "stream" }, action = { profile = "%app" },
                     explore = { strategies = { "lpgp" } } } } }
]])
  adapter.setup({ file = path, recheck = 0, log = { info = function() end, error = function() end } })
  local set = "learn-prof\nstream\nnone,lpgp"
  local n = 0
  while engine.block_pick({ "none", "lpgp" }, set, n) ~= "none" do n = n + 1 end
  engine.explored[set] = n  -- the next job would get none
  local was = "slurm-pin: rule=learn-prof mode=default strategy=lpgp profile=stream threads=8 explore=stream"
  local rec = { job_id = 8, name = "stream", partition = "debug", account = "users", user_name = "alice",
                spank_job_env = { "OMP_NUM_THREADS=8" }, admin_comment = was }
  local change = { partition = "other" }
  T.eq(adapter.modify(change, rec, {}, 1000), 0, "the decision is unchanged, so a user may make the change")
  T.eq(change.admin_comment, nil)
  T.eq(engine.explored[set], n, "no turn taken")
end)

-- ---- recording MPI traffic on the first jobs ------------------------------------

local RECORD = [[
return {
  autopilot = "AUTOPILOT",
  rules = {
    { name = "learn-halo", match = { app = "halo" }, action = { profile = "%app" },
      explore = { strategies = { "compact", "lpgp" }, runs = 5, record = 2 } },
  },
}
]]
local record_path = write("record.lua", (string.gsub(RECORD, "AUTOPILOT", autopilot)))

T.test("the first jobs record their traffic; profile-guided candidates wait for a profile", function()
  local p = assert(engine.load(record_path))
  local key = "learn-halo\nhalo"
  engine.recording[key] = nil
  for i = 1, 2 do
    local d = engine.decide(p, job({ apps = { "halo" }, tasks = 4, threads = 1, user = "alice" }), index)
    T.eq(engine.format(d), "slurm-pin: rule=learn-halo mode=default strategy=none tasks=4 threads=1 explore=halo record=halo",
         "recording job " .. i)
    engine.took(d)
  end
  T.eq(engine.recording[key], 2)
  -- No profile yet: the candidates without one, in blocks of their own.
  for _ = 1, 8 do
    local d = engine.decide(p, job({ apps = { "halo" }, tasks = 4, threads = 1, user = "alice" }), index)
    T.eq(d.record, nil)
    T.eq(d.strategy == "none" or d.strategy == "compact", true, "no profile-guided candidate: " .. d.strategy)
    T.eq(d.profile, nil, "a candidate that needs no profile takes none")
    engine.took(d)
  end
  engine.recording[key] = nil
end)

T.test("a user's recorded profile steers only that user's jobs; the site store's steers everyone's", function()
  write("autopilot/learned.lua", [[
return { recorded = { { rule = "learn-halo", app = "halo", user = "alice", threads = 1, job = 12, ranks = 4 } } }
]])
  local p = assert(engine.load(record_path))
  local alice, bob = {}, {}
  for _ = 1, 9 do
    local d = engine.decide(p, job({ apps = { "halo" }, tasks = 4, threads = 1, user = "alice" }), index)
    T.eq(d.record, nil, "a recorded profile ends the recording")
    alice[d.strategy] = (alice[d.strategy] or 0) + 1
    if d.strategy == "lpgp" then
      T.contains(engine.format(d), " strategy=lpgp profile=halo tasks=4 threads=1 store=user explore=halo")
    end
    engine.took(d)
    d = engine.decide(p, job({ apps = { "halo" }, tasks = 4, threads = 1, user = "bob" }), index)
    T.eq(d.record, nil)
    bob[d.strategy] = (bob[d.strategy] or 0) + 1
    engine.took(d)
  end
  T.eq((alice.none or 0) .. " " .. (alice.compact or 0) .. " " .. (alice.lpgp or 0), "3 3 3", "alice's blocks")
  T.eq(bob.lpgp, nil, "bob's jobs never use alice's profile")
  -- At another thread count alice has no profile either.
  for _ = 1, 4 do
    local d = engine.decide(p, job({ apps = { "halo" }, tasks = 4, threads = 2, user = "alice" }), index)
    T.eq(d.strategy ~= "lpgp", true)
    engine.took(d)
  end
  -- Promoted to the site store: everyone's jobs, from the store.
  write_index(2, { "p stream 8 1", "p stream 8 3", "p stream 16 1", "p halo 1 1" })
  index:refresh()
  local seen = 0
  for _ = 1, 6 do
    local d = engine.decide(p, job({ apps = { "halo" }, tasks = 4, threads = 1, user = "bob" }), index)
    if d.strategy == "lpgp" then
      seen = seen + 1
      T.contains(engine.format(d), " strategy=lpgp profile=halo tasks=4 threads=1 explore=halo")
      T.eq(d.store, nil)
    end
    engine.took(d)
  end
  T.eq(seen, 2, "bob's blocks hold lpgp")
  write_index(3, { "p stream 8 1", "p stream 8 3", "p stream 16 1" })
  index:refresh()
  os.remove(autopilot .. "/learned.lua")
end)

T.test("a changed job keeps its recording or its user-store candidate", function()
  write("autopilot/learned.lua", [[
return { recorded = { { rule = "learn-halo", app = "halo", user = "alice", threads = 1 } } }
]])
  adapter.setup({ file = record_path, recheck = 0, log = { info = function() end, error = function() end } })
  for _, was in ipairs({
    "slurm-pin: rule=learn-halo mode=default strategy=none tasks=4 threads=1 explore=halo record=halo",
    "slurm-pin: rule=learn-halo mode=default strategy=lpgp profile=halo tasks=4 threads=1 store=user explore=halo",
  }) do
    local rec = { job_id = 9, name = "halo", partition = "debug", account = "users", user_name = "alice",
                  num_tasks = 4, cpus_per_task = 1, spank_job_env = {}, admin_comment = was }
    local change = { partition = "other" }
    T.eq(adapter.modify(change, rec, {}, 1000), 0, was)
    T.eq(change.admin_comment, nil)
  end
  os.remove(autopilot .. "/learned.lua")
end)

T.test("record and recorded entries are checked", function()
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, action = { profile = "%app" },
    explore = { strategies = { "lpgp" }, record = 0 } }]]), "explore.record must be a whole number from 1 to 10")
  T.contains(rule_error([[{ name = "e", match = { app = "a" }, explore = { strategies = { "compact" }, record = 1 } }]]),
             "add a profile-guided strategy")
  local function learned_err(text)
    write("autopilot/learned.lua", text)
    local _, err = engine.load(record_path)
    os.remove(autopilot .. "/learned.lua")
    return err or ""
  end
  T.contains(learned_err([[return { recorded = { { rule = "nope", app = "halo", user = "alice", threads = 1 } } }]]),
             "no explore rule is named 'nope'")
  T.contains(learned_err([[return { recorded = { { rule = "learn-halo", app = "other", user = "alice", threads = 1 } } }]]),
             "app must be one application")
  T.contains(learned_err([[return { recorded = { { rule = "learn-halo", app = "halo", user = "a b", threads = 1 } } }]]),
             "user must be a user name")
  T.contains(learned_err([[return { recorded = { { rule = "learn-halo", app = "halo", user = "alice", threads = 1, path = "/x" } } }]]),
             "unknown field 'path'")
end)

T.test("a learned rule takes only its explore rule's jobs: an enforced rule after it still gets the others", function()
  local path = write("narrow.lua", (string.gsub([[
return {
  autopilot = "AUTOPILOT",
  rules = {
    { name = "learn-research", match = { app = "busy_pair", account = "research" },
      explore = { strategies = { "compact" } } },
    { name = "fixed-account", match = { account = "fixed" }, action = { strategy = "scatter", mode = "enforce" } },
  },
}
]], "AUTOPILOT", autopilot)))
  write("autopilot/learned.lua", [[
return { rules = { { name = "autopilot-busy_pair-1", learned_by = "learn-research", match = { app = "busy_pair" },
                     action = { strategy = "compact" } } } }
]])
  local p = assert(engine.load(path))
  T.eq(p.rules[1].name, "autopilot-busy_pair-1")
  T.eq(engine.decide(p, job({ apps = { "busy_pair" }, account = "research" })).rule, "autopilot-busy_pair-1")
  local d = engine.decide(p, job({ apps = { "busy_pair" }, account = "fixed" }))
  T.eq(d.rule, "fixed-account")
  T.eq(d.strategy, "scatter")
  os.remove(autopilot .. "/learned.lua")
end)

T.test("profile names follow the engine's one rule (tests/fixtures/profile_names.txt)", function()
  local n = 0
  for line in io.lines(here .. "../fixtures/profile_names.txt") do
    local want, name = string.match(line, "^(%a+) (.+)$")
    if want then
      T.eq(engine.valid_profile_name(name), want == "yes", name)
      n = n + 1
    end
  end
  T.eq(n > 10, true, "the fixture has cases")
  T.eq(engine.valid_profile_name(""), false)
end)

os.execute("rm -rf " .. tmp)
T.done()
