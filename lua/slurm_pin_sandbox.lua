-- SPDX-License-Identifier: GPL-2.0-or-later
-- Running admin-written Lua inside slurmctld without letting a slip stall
-- or bloat the controller: an instruction budget and a memory budget
-- (a count hook, as Lua 5.1's debug library allows), and a string library
-- whose functions cannot allocate past the memory budget in one call,
-- where no hook can interrupt them. Pure Lua 5.1; also runs on 5.2-5.4.
local M = {}

-- Budgets (docs/policy.md): loading the policy file once per change, and
-- deciding one job. Both far above what a policy of ten thousand rules
-- needs, and far below what would delay job submission noticeably.
M.LOAD = { instructions = 1000000, memory_kb = 64 * 1024, step = 1, collect = true }
M.DECIDE = { instructions = 1000000, memory_kb = 16 * 1024, step = 1000 }

local BudgetError = {}
BudgetError.__index = BudgetError
BudgetError.__tostring = function(e) return e.message end

function M.is_budget_error(e) return getmetatable(e) == BudgetError end

local function over(message) error(setmetatable({ message = message }, BudgetError), 0) end

-- The current budget, for the string functions below.
local current = nil

-- Would `bytes` more break the memory budget? (0: is it broken already?)
local function memory_over(bytes)
  return current and collectgarbage("count") - current.base_kb + bytes / 1024 > current.memory_kb
end

local function over_memory() over("over its memory budget of " .. math.floor(current.memory_kb / 1024) .. " MiB") end

local function reserve(bytes)
  if memory_over(bytes) then over_memory() end
end

-- The string methods a policy may call (("x"):upper() and the like). Each
-- runs in one C call that no hook can interrupt, so each must be cheap
-- whatever its arguments: the result of rep and format is reserved first;
-- find searches plain text only, and at most MAX_FIND_WORK byte comparisons
-- (a naive search costs the subject's length times the needle's). Lua
-- patterns backtrack (a few thousand bytes against "(.-)x(.-)y" run for
-- minutes), so match, gmatch, gsub and dump are left out: a policy is data.
M.MAX_FIND_WORK = 16 * 1024 * 1024
local PATTERNS_GONE = "string patterns are not available in a policy file (a policy is data): " ..
                      "compare with ==, or search plain text with s:find(text, 1, true)"
local safe_string = {}
for _, name in ipairs({ "byte", "char", "len", "lower", "reverse", "sub", "upper" }) do
  safe_string[name] = string[name]
end
function safe_string.find(s, needle, init, plain)
  s, needle = tostring(s), tostring(needle)
  if not plain and string.find(needle, "[%^%$%*%+%?%.%(%)%[%]%%%-]") then error(PATTERNS_GONE, 2) end
  if #s * #needle > M.MAX_FIND_WORK then
    over("over its budget of " .. M.MAX_FIND_WORK .. " byte comparisons in one find")
  end
  return string.find(s, needle, init, true)
end
function safe_string.match() error(PATTERNS_GONE, 2) end
safe_string.gmatch = safe_string.match
function safe_string.rep(s, n, sep)
  s = tostring(s)
  n = math.floor(tonumber(n) or 0)
  if n > 0 then reserve((#s + (sep and #tostring(sep) or 0)) * n) end
  return string.rep(s, n, sep)
end
function safe_string.format(fmt, ...)
  local bytes = #tostring(fmt)
  for i = 1, select("#", ...) do bytes = bytes + #tostring((select(i, ...))) + 100 end
  reserve(bytes)
  return string.format(fmt, ...)
end

-- Runs f() under `limits` ({ instructions, memory_kb, step }). Returns
-- true and f's results, or false and the error (a budget error or f's).
-- The hook runs every `step` VM instructions; strings' methods are the safe
-- ones meanwhile, and everything is restored afterwards.
function M.run(limits, f, ...)
  local args, nargs = { ... }, select("#", ...)
  local string_meta = getmetatable("")
  local saved_index = string_meta and string_meta.__index
  local saved_hook = { debug.gethook() }
  local outer = current
  -- A full collection first makes the memory measure exact; per job that
  -- would cost more than the decision, so only loads do it.
  if limits.collect then collectgarbage("collect") end
  current = { base_kb = collectgarbage("count"), memory_kb = limits.memory_kb }
  local count, stopped = 0, false
  local unpack = unpack or table.unpack
  -- The hook raises at most once, and never once f's run is over: it may
  -- still fire between the end of the run and the restoring of the hook.
  local function hook()
    if stopped then return end
    count = count + limits.step
    if count > limits.instructions then
      stopped = true
      over("over its budget of " .. limits.instructions .. " instructions")
    end
    if memory_over(0) then
      stopped = true
      over_memory()
    end
  end
  local result
  if string_meta then string_meta.__index = safe_string end
  debug.sethook(hook, "", limits.step)
  local outer_ok, outer_err = pcall(function()
    result = { pcall(f, unpack(args, 1, nargs)) }
    stopped = true
  end)
  stopped = true
  debug.sethook(unpack(saved_hook))
  if not outer_ok then result = { false, outer_err } end
  if string_meta then string_meta.__index = saved_index end
  current = outer
  if not result[1] then collectgarbage("collect") end  -- what an over-budget run left behind
  return unpack(result, 1, table.maxn and table.maxn(result) or #result)
end

return M
