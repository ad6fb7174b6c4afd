-- SPDX-License-Identifier: GPL-2.0-or-later
-- job_submit.lua for Slurm's job_submit/lua (JobSubmitPlugins=lua), as
-- shipped by slurm-pin: it applies the site's placement policy and nothing
-- else. Sites with their own job_submit.lua add the three marked lines to it.
--
-- slurm-pin's modules are looked for beside this file and where the
-- packages put them, nowhere else: Lua's default search path starts with
-- ./?.lua, and slurmctld (or an admin's `slurm-pin policy probe`) runs
-- wherever it was started. The site's own search path is restored after.
local here = string.match(debug.getinfo(1, "S").source, "^@(/.*/)")
local site_path, site_cpath = package.path, package.cpath
package.path = (here and here .. "?.lua;" or "") .. "/usr/share/slurm-pin/lua/?.lua"
package.cpath = ""

-- A missing or broken module must never stop slurmctld: log once, and let
-- every job pass unchanged.
local loaded, slurm_pin = pcall(require, "slurm_pin_job_submit")         -- (1)
package.path, package.cpath = site_path, site_cpath
if not loaded then
  (slurm.log_error or slurm.error)("%s", "slurm-pin: policy disabled, jobs pass unchanged: cannot load its module (" ..
    string.gsub(tostring(slurm_pin), "%c", " ") .. "): install slurm_pin_job_submit.lua, slurm_pin_policy.lua, " ..
    "slurm_pin_sandbox.lua and slurm_pin_strategies.lua beside job_submit.lua")
  slurm_pin = { submit = function() return slurm.SUCCESS end, modify = function() return slurm.SUCCESS end }
else
  slurm_pin.setup({
    here = here,  -- slurm_pin_io.so may sit beside this file
    file = os.getenv("SLURM_PIN_POLICY_FILE") or (here or "/etc/slurm/") .. "slurm-pin-policy.lua",
    recheck = tonumber(os.getenv("SLURM_PIN_POLICY_RECHECK") or "") or 10,  -- seconds
    -- Slurm's loggers take a format: never pass our text as one.
    log = {
      info = function(m) slurm.log_info("%s", m) end,
      error = function(m) (slurm.log_error or slurm.error)("%s", m) end,
    },
  })
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  return slurm_pin.submit(job_desc, part_list, submit_uid)               -- (2)
end

-- A change that can change which rule matches is decided again.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm_pin.modify(job_desc, job_rec, part_list, modify_uid)      -- (3)
end

return slurm.SUCCESS
