-- SPDX-License-Identifier: GPL-2.0-or-later
-- A small TAP producer for the Lua tests (Lua 5.1 to 5.4).
local T = { n = 0, failed = 0 }

function T.test(name, fn)
  T.n = T.n + 1
  local ok, err = pcall(fn)
  if ok then
    print("ok " .. T.n .. " " .. name)
  else
    T.failed = T.failed + 1
    print("not ok " .. T.n .. " " .. name)
    print("# " .. tostring(err))
  end
end

function T.eq(got, want, what)
  if got ~= want then
    error((what or "value") .. ": got " .. tostring(got) .. ", want " .. tostring(want), 2)
  end
end

function T.contains(text, part, what)
  if not string.find(tostring(text), part, 1, true) then
    error((what or "text") .. ": '" .. tostring(text) .. "' lacks '" .. part .. "'", 2)
  end
end

function T.done()
  print("1.." .. T.n)
  os.exit(T.failed == 0 and 0 or 1)
end

return T
