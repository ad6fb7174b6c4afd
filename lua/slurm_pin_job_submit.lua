-- SPDX-License-Identifier: GPL-2.0-or-later
-- slurm-pin's adapter between Slurm's job_submit/lua and the policy engine.
-- Merge into an existing job_submit.lua with:
--   local slurm_pin = require("slurm_pin_job_submit")
--   ... in slurm_job_submit: local rc = slurm_pin.submit(job_desc, part_list, submit_uid)
--   ... in slurm_job_modify: slurm_pin.modify(job_desc, job_rec, part_list, modify_uid)
-- A broken policy file or store leaves jobs as they were and logs one error
-- naming the file, line and fix. What one job costs is bounded whatever it
-- holds (its script is scanned only so far, docs/policy.md "Budgets"), and a
-- job the policy still cannot decide within its budget is refused, alone:
-- the policy stays in force for every other job.
local policy_engine = require("slurm_pin_policy")
local strategies = require("slurm_pin_strategies")

local M = {}

local PLUGIN = "_SLURM_SPANK_OPTION_slurm_pin_"            -- SPANK options in spank_job_env
local ENV = "SLURM_SPANK__SLURM_SPANK_OPTION_slurm_pin_"   -- the same as environment variables
local OPTIONS = { strategy = "pin_strategy", profile = "pin_profile", mem = "pin_mem", granularity = "pin_granularity",
                  thread_binding = "pin_thread_binding" }
local NO_VAL = 4294967294
local NO_VAL16 = 65534

-- What the adapter reads inside slurmctld, and for how long it waits.
M.POLICY_MAX_BYTES = 16 * 1024 * 1024
M.INDEX_MAX_BYTES = 64 * 1024 * 1024
M.READ_TIMEOUT_MS = 200

local state = {
  file = "/etc/slurm/slurm-pin-policy.lua",
  recheck = 10,   -- seconds between looks at the policy file
  checked = nil,  -- os.time() of the last look
  text = nil,     -- the file as last read
  policy = nil,
  index = nil,
  io = nil,       -- slurm_pin_io, or nil when it cannot be loaded
  log = { info = print, error = print },
}

-- The absolute entries of a Lua search path, as a list: Lua's default
-- starts with ./?.lua and ./?.so, the directory slurmctld (or root's
-- `slurm-pin policy`) was started in.
function M.absolute_entries(search_path)
  local kept = {}
  for entry in string.gmatch(search_path, "[^;]+") do
    if string.sub(entry, 1, 1) == "/" then kept[#kept + 1] = entry end
  end
  return kept
end

-- slurm_pin_io (lua/slurm_pin_io.c) from beside job_submit.lua, the build
-- tree or where the packages install it, else the host's own absolute
-- directories; never from a relative one.
local function load_io()
  local version = string.match(_VERSION, "%d+%.%d+") or "5.1"
  local saved = package.cpath
  local dirs = {}
  for _, d in ipairs(strategies.io_module_dirs or {}) do dirs[#dirs + 1] = d .. "/" .. version .. "/?.so" end
  if state.here and string.sub(state.here, 1, 1) == "/" then table.insert(dirs, 1, state.here .. "?.so") end
  for _, entry in ipairs(M.absolute_entries(saved)) do dirs[#dirs + 1] = entry end
  package.cpath = table.concat(dirs, ";")
  local ok, io_module = pcall(require, "slurm_pin_io")
  package.cpath = saved
  if ok then return io_module end
  return nil, tostring(io_module)
end

function M.setup(options)
  for k, v in pairs(options or {}) do state[k] = v end
  state.checked, state.text, state.policy, state.loaded, state.last_error = nil, nil, nil, false, nil
  state.index_checked = nil
  if not state.io then state.io, state.io_error = load_io() end
end

-- One log line per new problem: a file with several errors logs its first
-- and where to see them all.
local function log_once(err)
  if err ~= state.last_error then
    local first = string.match(err, "^[^\n]*")
    local more = first ~= err and (" (more errors: slurm-pin policy check " .. state.file .. ")") or ""
    state.log.error("slurm-pin: policy disabled, jobs pass unchanged: " .. first .. more)
  end
  state.last_error = err
end

-- The site's store, set once: the store= of the slurm_pin.so line in the
-- plugstack.conf of the slurm.conf beside job_submit.lua (slurmctld's),
-- looked up when the policy (re)loads; the default when none gives one.
M.DEFAULT_STORE = "/var/lib/slurm-pin/profiles"
local function site_store()
  if not (state.io and state.io.site_store and state.here) then return M.DEFAULT_STORE end
  local store, err = state.io.site_store(state.here .. "slurm.conf", M.READ_TIMEOUT_MS)
  if not store then state.log.error("slurm-pin: the site's store: " .. err .. "; using " .. M.DEFAULT_STORE) end
  return (store and store ~= "") and store or M.DEFAULT_STORE
end

-- The store index reads its file through slurm_pin_io, its first line per
-- job and the rest only when the generation changed.
local function index_reader(path, head)
  return state.io.read(path, M.INDEX_MAX_BYTES, M.READ_TIMEOUT_MS, head)
end

-- The autopilot's learned file (policy key autopilot), through slurm_pin_io
-- as the policy is: nil when there is none yet; any other problem is
-- logged (once while it lasts) and read as nothing learned.
local function read_learned(path)
  local text, err = state.io.read(path, M.POLICY_MAX_BYTES, M.READ_TIMEOUT_MS)
  err = (not text and not string.find(tostring(err), "No such file", 1, true)) and tostring(err) or nil
  if err and err ~= state.learned_error then
    state.log.error("slurm-pin: the autopilot's learned rules are not used: " .. err)
  end
  state.learned_error = err
  return text
end

local function learned_path(policy)
  return policy and policy.autopilot and (policy.autopilot .. "/" .. policy_engine.LEARNED_FILE) or nil
end

-- Re-reads the policy when its text (or the autopilot's learned file) changed; a broken file disables the
-- policy (jobs pass unchanged) with one error per change.
local function current_policy()
  if not state.io then
    log_once("cannot load its file reader slurm_pin_io (" .. string.gsub(tostring(state.io_error), "%c", " ") ..
             "): install slurm_pin_io.so beside job_submit.lua, or the slurm-pin package")
    return nil
  end
  local now = os.time()
  if state.checked and now - state.checked < state.recheck then return state.policy end
  state.checked = now
  local text, read_err = state.io.read(state.file, M.POLICY_MAX_BYTES, M.READ_TIMEOUT_MS)
  if not text then
    state.policy, state.text, state.loaded = nil, nil, false
    log_once(read_err .. " (the policy file must be a regular file of root or its directory's owner, " ..
             "writable by that owner alone)")
    return nil
  end
  -- The learned file read once per look: handed to the load below when the
  -- policy still names the same directory.
  local was_path = learned_path(state.policy)
  local learned = was_path and read_learned(was_path)
  if text == state.text and learned == state.learned and state.loaded then return state.policy end
  state.text, state.loaded, state.last_error = text, true, nil  -- a changed file: its problem is news
  local used
  local policy, err = policy_engine.load(state.file, text, function(path)
    if path == was_path then used = learned else used = read_learned(path) end
    return used
  end)
  state.learned = used
  if not policy then
    state.policy = nil
    log_once(err)
    return nil
  end
  state.policy = policy
  state.index, state.index_checked = policy_engine.index(policy.store or site_store(), index_reader), nil
  state.log.info("slurm-pin: policy " .. state.file .. " loaded: " .. #policy.rules .. " rules")
  return policy
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

local function spank_options(env, environment)
  local found = {}
  if type(env) == "table" then
    local looked = 0
    for _, entry in pairs(env) do
      looked = looked + 1
      if looked > M.MAX_SPANK_ENTRIES then break end
      if type(entry) == "string" and #entry <= M.MAX_SPANK_ENTRY then
        local name, value = string.match(entry, "^" .. PLUGIN .. "([%w_]+)=(.*)$")
        if name then found[name] = value end
      end
    end
  end
  for _, option in pairs(OPTIONS) do
    local v = type(environment) == "table" and environment[ENV .. option] or nil
    if v and found[option] == nil then found[option] = v end
  end
  return found
end

-- Executables a batch script launches: the first word after srun, mpirun or
-- mpiexec (or a distribution's mpirun.openmpi, mpiexec.hydra) at the start
-- of a line, past their options. What this costs is
-- bounded by these constants, never by the script: only its first
-- MAX_SCRIPT_BYTES are read (launcher lines past them are not seen: name
-- the application with --job-name or --pin-profile), searched in C
-- (string.find) with patterns linear in what they read; Lua looks at most
-- at MAX_LAUNCH_LINES lines that may be launcher lines, MAX_WORDS words of each, and keeps
-- MAX_APPS distinct names. A word longer than a path (MAX_WORD) is no
-- program, and a name longer than any rule or store can hold
-- (policy.MAX_APP_NAME) no candidate.
M.MAX_SCRIPT_BYTES = 64 * 1024
M.MAX_LAUNCH_LINES = 1000
M.MAX_WORDS = 64
M.MAX_WORD = 4096
-- A job naming more partitions is refused: it is decided in each.
M.MAX_PARTITIONS = 16
-- spank_job_env entries looked at, and the longest one read: slurm-pin's
-- options are a handful of short ones.
M.MAX_SPANK_ENTRIES = 256
M.MAX_SPANK_ENTRY = 8192
local LAUNCHERS = { srun = true, mpirun = true, mpiexec = true }

-- Launcher options written apart from their value ("--map-by core"), with
-- how many values follow; one-letter options ("-n 4") take one, and so does
-- any option followed by a number ("-np 4", "--ntasks 8").
local VALUES = { ["--map-by"] = 1, ["--bind-to"] = 1, ["--rank-by"] = 1, ["-x"] = 1, ["--host"] = 1,
                 ["-host"] = 1, ["-hosts"] = 1, ["--hostfile"] = 1, ["-hostfile"] = 1, ["-machinefile"] = 1,
                 ["-ppn"] = 1, ["-genv"] = 2, ["-env"] = 2, ["--mca"] = 2, ["-mca"] = 2 }

-- The file name of a path: what follows its last '/' (plain finds, each
-- from where the last stopped, so linear in the word).
local function base_name(word)
  local from, at = 1, string.find(word, "/", 1, true)
  while at do
    from = at + 1
    at = string.find(word, "/", from, true)
  end
  return string.sub(word, from)
end

-- The program a launcher line starts, or nil.
local function program_of(rest)
  local skip, words, after_option = 0, 0, false
  for word in string.gmatch(rest, "%S+") do
    words = words + 1
    if words > M.MAX_WORDS then return nil end
    if skip > 0 then
      skip = skip - 1
    elseif string.sub(word, 1, 1) == "-" then
      local eq = string.find(word, "=", 1, true)
      skip = (not eq and (VALUES[word] or (string.len(word) == 2 and 1))) or 0
      after_option = not eq
    elseif after_option and string.match(word, "^[%d,:%-]+$") then
      after_option = false  -- the value of the option before
    elseif #word > M.MAX_WORD then
      return nil
    else
      return base_name(word)
    end
  end
  return nil
end

-- Hands each program the script's launcher lines start to add(). One
-- search in C finds the next line that may start a launcher (its first
-- letters those of srun, mpirun or mpiexec); its first word then says.
local MAY_LAUNCH = "\n[ \t]*[sm][rp][ui]"
local function launched(script, add)
  if type(script) ~= "string" then return end
  local text = "\n" .. string.sub(script, 1, M.MAX_SCRIPT_BYTES)
  local at = string.find(text, MAY_LAUNCH, 1)
  for _ = 1, M.MAX_LAUNCH_LINES do
    if not at then return end
    local line_end = string.find(text, "\n", at + 1, true) or (#text + 1)
    -- One class before the blank, so a failed match backtracks linearly.
    local word, rest = string.match(string.sub(text, at + 1, line_end - 1), "^[ \t]*([%w%.]+)[ \t]+(.*)$")
    if word and (LAUNCHERS[word] or LAUNCHERS[string.match(word, "^(%a+)%.") or ""]) then add(program_of(rest)) end
    at = string.find(text, MAY_LAUNCH, line_end)
  end
end

local function default_partition(part_list)
  for _, p in pairs(part_list or {}) do
    if p.flag_default == 1 then return p.name end
  end
  return nil
end

-- Application candidates: the profile the user named, the job name, then
-- what the script launches; distinct, at most policy.MAX_APPS.
local function candidates(options, name, script)
  local apps, seen = {}, {}
  local function add(app)
    if app and app ~= "" and #app <= policy_engine.MAX_APP_NAME and not seen[app] and
       #apps < policy_engine.MAX_APPS then
      seen[app] = true
      apps[#apps + 1] = app
    end
  end
  if options.pin_profile then add(string.match(options.pin_profile, "^([^@/]+)")) end
  add(name)
  launched(script, add)
  return apps
end

-- What the policy matches, from a job's fields (`job`: a job_desc at
-- submission; at modification, the request's fields over the job record's).
local function view_of(job, part_list)
  local options = spank_options(job.spank_job_env, job.environment)
  local threads = tonumber(type(job.environment) == "table" and job.environment["OMP_NUM_THREADS"] or nil)
  local cpt = job.cpus_per_task
  if not threads and cpt and cpt ~= NO_VAL16 and cpt > 0 then threads = cpt end
  threads = threads or job.recorded_threads
  local nodes, tasks = job.min_nodes, job.num_tasks
  local partitions = {}
  for p in string.gmatch(job.partition or default_partition(part_list) or "", "[^,]+") do
    partitions[#partitions + 1] = p
    if #partitions > M.MAX_PARTITIONS then break end
  end
  return {
    name = job.name,
    apps = candidates(options, job.name, job.script),
    partition = partitions[1] or "",
    partitions = partitions,
    account = job.account,
    user = job.user_name,
    qos = job.qos,
    nodes = (nodes and nodes ~= NO_VAL and nodes ~= 0) and nodes or 1,
    tasks = (tasks and tasks ~= NO_VAL and tasks ~= 0) and tasks or nil,
    threads = threads,
    batch = job.script ~= nil,
    user_choice = { strategy = options.pin_strategy, profile = options.pin_profile, mem = options.pin_mem,
                    granularity = options.pin_granularity, thread_binding = options.pin_thread_binding },
  }
end

-- A job being submitted. job_desc.environment exists for batch jobs only
-- (Slurm logs an error when it is read for others).
local keep_explored

local function job_view(job_desc, part_list)
  local script = job_desc.script  -- Slurm copies it at every read: once
  return view_of({
    spank_job_env = job_desc.spank_job_env, environment = script ~= nil and job_desc.environment or nil,
    name = job_desc.name, script = script, cpus_per_task = job_desc.cpus_per_task,
    min_nodes = job_desc.min_nodes, num_tasks = job_desc.num_tasks, partition = job_desc.partition, account = job_desc.account,
    user_name = job_desc.user_name, qos = job_desc.qos,
  }, part_list)
end

-- The fields a change can set that can change which rule matches a job.
local MATCHED = { "name", "partition", "account", "qos", "min_nodes", "num_tasks", "cpus_per_task" }

-- Whether a change request sets field k.
local function sets(job_desc, k)
  local v = job_desc[k]
  return v ~= nil and v ~= NO_VAL and v ~= NO_VAL16
end

-- The decision recorded in an admin_comment: its last part, when it is one.
local function recorded(comment)
  local last = string.match(comment or "", "([^|]*)$") or ""
  last = string.match(last, "^%s*(.-)%s*$")
  return string.sub(last, 1, 10) == "slurm-pin:" and last or nil
end

-- A job being changed: what the request sets, over what the job has.
local function modified_view(job_desc, job_rec, part_list)
  local job = {
    spank_job_env = job_rec.spank_job_env, script = job_rec.script,
    user_name = job_rec.user_name or (job_rec.user_id and ("uid " .. tostring(job_rec.user_id))),
    name = job_rec.name, partition = job_rec.partition, account = job_rec.account, qos = job_rec.qos,
    min_nodes = job_rec.min_nodes, cpus_per_task = job_rec.cpus_per_task,
  }
  -- Tasks and threads are not in Slurm's job record as job_submit/lua
  -- shows it: the shape the recorded decision matched stands for them.
  local was = recorded(job_rec.admin_comment) or ""
  job.num_tasks = tonumber(string.match(was, " tasks=(%d+)"))
  job.recorded_threads = tonumber(string.match(was, " threads=(%d+)"))
  for _, k in ipairs(MATCHED) do
    if sets(job_desc, k) then job[k] = job_desc[k] end
  end
  return view_of(job, part_list)
end

-- admin_comment: what other writers keep there, then slurm-pin's decision,
-- always last (the node reads only the last part, pin_policy_from_comment).
-- Any other part that looks like a decision is dropped: nobody but the
-- policy may stand for it.
local function with_decision(comment, text)
  local others = {}
  for part in string.gmatch(comment or "", "[^|]+") do
    part = string.match(part, "^%s*(.-)%s*$")
    if part ~= "" and not string.find(part, "slurm-pin:", 1, true) then others[#others + 1] = part end
  end
  if text then others[#others + 1] = text end
  return table.concat(others, " | ")
end

local function decision_text(decision)
  return decision and (policy_engine.format(decision) .. (decision.applied and "" or " applied=no")) or nil
end

local function log_decision(job, decision, text, verb)
  if not decision then return end
  state.log.info(string.format("slurm-pin: job %s of %s%s: rule %s %s: %s", shown(job.name), shown(job.user), verb,
                               decision.rule, decision.applied and "applied" or "yields to the user's own choice", text))
end

-- Decides the job `view` builds (inside the budget) in each partition it
-- names; the decision, or nil and why the job cannot be decided. A job
-- that names several partitions whose decisions differ cannot be: it may
-- run in any of them.
local function decide(view)
  local policy = current_policy()
  if not policy then return false end
  -- The store's index is looked at on the policy file's cadence: each look
  -- is a read by a helper thread (slurm_pin_io), and waiting for a new
  -- thread to run cost a submission more time under slurmctld's job lock
  -- than deciding it (bench/policy/submit: 0.91x plain submissions/s when
  -- looked at per job).
  local now = os.time()
  if state.index and (not state.index_checked or now - state.index_checked >= state.recheck) then
    state.index:refresh()
    state.index_checked = now
  end
  local job, decision, err = policy_engine.decide_budgeted(policy, view, state.index, state.file)
  if err then
    return nil, nil, err, "slurm-pin: the site policy cannot decide this job within its budget; ask the admin"
  end
  local text = decision_text(decision)
  if #job.partitions > M.MAX_PARTITIONS then
    return nil, nil, "more than " .. M.MAX_PARTITIONS .. " partitions",
           "slurm-pin: the site policy decides jobs of at most " .. M.MAX_PARTITIONS .. " partitions"
  end
  for i = 2, #job.partitions do
    local other = {}
    for k, v in pairs(job) do other[k] = v end
    other.partition = job.partitions[i]
    local _, d = policy_engine.decide_budgeted(policy, other, state.index, state.file)
    if decision_text(d) ~= text then
      return nil, nil, "partitions " .. shown(job.partitions[1]) .. " and " .. shown(job.partitions[i]) ..
             " are decided differently", "slurm-pin: the site policy places jobs differently in partitions " ..
             job.partitions[1] .. " and " .. job.partitions[i] .. ": submit to one of them"
    end
  end
  return job, decision
end

-- An enforced rule replaces what the user asked: the user is told at
-- submission (sbatch, srun and salloc print it), not only at run time.
local function tell_overridden(job, decision)
  if not (decision and decision.mode == "enforce" and job.user_choice and slurm and slurm.log_user) then return end
  local replaced = {}
  for _, k in ipairs({ "strategy", "profile", "mem", "granularity", "thread_binding" }) do
    local mine, rule = job.user_choice[k], decision[k]
    if mine and rule and mine ~= rule then
      replaced[#replaced + 1] = "--pin-" .. string.gsub(k, "_", "-") .. "=" .. shown(mine) .. " becomes " .. shown(rule)
    end
  end
  if #replaced > 0 then
    slurm.log_user("%s", "slurm-pin: the site policy's rule " .. decision.rule .. " is enforced for this job: " ..
                   table.concat(replaced, ", "))
  end
end

-- job_submit: returns slurm.SUCCESS, or slurm.ERROR with the reason in
-- slurm.log_user (the user sees it) when the policy cannot decide the job.
function M.submit(job_desc, part_list, submit_uid)
  local ok, job, decision, err, why = pcall(decide, function() return job_view(job_desc, part_list) end)
  if ok and not err then
    if job then
      local text = decision_text(decision)
      local comment = with_decision(job_desc.admin_comment, text)
      if comment ~= (job_desc.admin_comment or "") then job_desc.admin_comment = comment end
      log_decision(job, decision, text, "")
      tell_overridden(job, decision)
      policy_engine.took(decision)
    end
    return slurm and slurm.SUCCESS or 0
  end
  state.log.error("slurm-pin: job " .. shown(job_desc.name) .. ": refused: " .. (ok and err or shown(job)))
  why = ok and why or "slurm-pin: the site policy failed on this job; ask the admin (slurmctld's log says why)"
  if slurm and slurm.log_user then slurm.log_user("%s", why) end
  return slurm and slurm.ERROR or -1
end

-- A job that was given an explore candidate keeps it when a change leaves
-- it under the same rule and application: its outcome counts for the
-- candidate it was given, and the next job's turn is not taken.
keep_explored = function(decision, was)
  if not (decision and decision.explore and was) then return end
  local given = string.match(was, " strategy=(%S+)")
  if given and string.match(was, " rule=(%S+)") == decision.rule and string.match(was, " explore=(%S+)") == decision.explore then
    local scope = string.match(was, " store=(%S+)") or (string.find(was, " profile=", 1, true) and "store") or nil
    policy_engine.give_candidate(decision, given, scope, string.find(was, " record=", 1, true) ~= nil)
    decision._explore_key, decision._record_key = nil, nil
  end
end

local function changes_match(job_desc)
  for _, k in ipairs(MATCHED) do
    if sets(job_desc, k) then return true end
  end
  return false
end

-- job_modify: a change that can change which rule matches (partition,
-- account, QOS, node count, name, CPUs per task) is decided again. The new
-- decision is recorded when the change comes from an administrator (only
-- they may set AdminComment, Slurm checks); a user's change that would
-- change the decision is refused, so that no move escapes a rule. A change
-- of the comment itself keeps the decision last.
function M.modify(job_desc, job_rec, part_list, modify_uid)
  if not changes_match(job_desc) and job_desc.admin_comment == nil then return slurm and slurm.SUCCESS or 0 end
  local ok, job, decision, err = pcall(decide, function() return modified_view(job_desc, job_rec, part_list) end)
  if ok and not err then
    if not job then return slurm and slurm.SUCCESS or 0 end
    keep_explored(decision, recorded(job_rec.admin_comment))
    local text = decision_text(decision)
    local admin = modify_uid == 0 or job_desc.admin_comment ~= nil  -- Slurm checked the latter already
    if text == recorded(job_rec.admin_comment) and job_desc.admin_comment == nil then
      return slurm and slurm.SUCCESS or 0
    end
    if admin then
      job_desc.admin_comment = with_decision(job_desc.admin_comment or job_rec.admin_comment, text)
      log_decision(job, decision, text, " (changed)")
      return slurm and slurm.SUCCESS or 0
    end
    err = "it would change the site policy's decision (" .. tostring(recorded(job_rec.admin_comment) or "none") ..
          " -> " .. tostring(text or "none") .. "), which only an administrator can record; resubmit the job instead"
  end
  state.log.error("slurm-pin: job " .. shown(job_rec.job_id) .. ": change by uid " .. shown(modify_uid) ..
                  " refused: " .. (ok and err or shown(job)))
  return slurm and (slurm.ESLURM_ACCESS_DENIED or slurm.ERROR) or -1
end

M._job_view, M._modified_view, M._launched, M._with_decision = job_view, modified_view, launched, with_decision
return M
