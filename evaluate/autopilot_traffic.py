# SPDX-License-Identifier: GPL-2.0-or-later
"""The MPI traffic of an explored application's first jobs (explore.record,
docs/autopilot.md).

A recording job's ranks write their rows into their user's own recordings
(HOME/.local/share/slurm-pin/recorded/JOB.STEP, the plugin's
spank_plugin/traffic_recording.c). Here, as that user and never as root
(setpriv, under a time and memory budget), `slurm-pin profile --rows`
turns them into a profile in the user's own store
(HOME/.local/share/slurm-pin/profiles, common/user_data.h). The learned
file then lists it (recorded), and the policy gives that user's jobs, and
no one else's, the profile-guided candidates. `promote` copies one into the
site store, an admin's decision: from then on everyone's jobs get them.

Root reads nothing a user wrote: it lists entry names in the user's store
(bounded), and runs slurm-pin's own commands as the user for the rest."""
import os
import pwd
import re
import subprocess
import tempfile

USER_STORE = ".local/share/slurm-pin/profiles"      # common/user_data.h USER_STORE_SUBDIR
USER_RECORDINGS = ".local/share/slurm-pin/recorded"  # USER_RECORDINGS_SUBDIR
# What one decide may spend on a user's rows: their user controls them
# (the files, and how many steps a recording job has).
ASSEMBLE_SECONDS = 120
ASSEMBLE_MEMORY = 4 << 30
ASSEMBLE_STEPS = 2  # steps tried per recording (rule, application, user), until one gives a profile
MAX_ENTRIES = 10000  # names looked at in one application's directory of a user's store
ENTRY = re.compile(r"t([0-9]{1,5})\.v([0-9]{1,9})\.profile")


def threads_of(run):
    """Each rank's threads as the decision recorded them (1 when the job said none)."""
    t = run["decision"].get("threads", "")
    return int(t) if t.isdigit() and int(t) > 0 else 1


def recordings(runs, rules):
    """Recording jobs' steps grouped by (rule, application, user):
    {key: {"threads": T, "steps": [...]}}; failed steps are kept, named."""
    out = {}
    for r in runs:
        rule = rules.get(r["rule"])
        if not r["record"] or rule is None or not rule.record or r["own_choice"]:
            continue
        g = out.setdefault((r["rule"], r["app"], r["user"]), {"threads": threads_of(r), "steps": []})
        g["steps"].append(r)
    return out


def user_of(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def store_threads(home, app):
    """The thread counts the user's own store holds `app` at (entry names
    only, at most MAX_ENTRIES looked at; nothing is read or followed)."""
    found = set()
    try:
        with os.scandir(os.path.join(home, USER_STORE, app)) as it:
            for n, e in enumerate(it):
                if n >= MAX_ENTRIES:
                    break
                m = ENTRY.fullmatch(e.name)
                if m and e.is_file(follow_symlinks=False):
                    found.add(int(m.group(1)))
    except OSError:
        pass
    return found


def user_command(pw, argv):
    """argv as the user runs it (their ids and groups, a clean environment),
    under the memory budget; root stays root only for setpriv itself."""
    cmd = ["prlimit", "--as=%d" % ASSEMBLE_MEMORY, "--"] + argv
    if os.geteuid() == pw.pw_uid:
        return cmd
    return ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--init-groups", "--reset-env", "--"] + cmd


def as_user(pw, argv):
    """argv run as the user (user_command) within the time budget: its exit
    status and the last line it wrote on standard error."""
    try:
        out = subprocess.run(user_command(pw, argv), capture_output=True, text=True, errors="replace",
                             timeout=ASSEMBLE_SECONDS, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as e:
        return 1, str(e)
    lines = (out.stderr or "").strip().splitlines()
    return out.returncode, lines[-1][:300] if lines else ""


def rows_dir(pw, step):
    """Where a recording step's ranks wrote their rows (the plugin's
    traffic_recording.c)."""
    return os.path.join(pw.pw_dir, USER_RECORDINGS, "%d.%d" % (step["job"], step["step"]))


def assemble(key, g, profile_cmd):
    """A completed step's rows made into a profile in the user's store, as
    the user, unless the store has one: at most ASSEMBLE_STEPS tried, the
    first that succeeds ends it. Returns [(step id, "assembled" | why not)]."""
    _, app, user = key
    pw = user_of(user)
    if pw is None:
        return [("-", "no user %s on this host" % user)]
    if g["threads"] in store_threads(pw.pw_dir, app):
        return []
    out = []
    for s in g["steps"]:
        if s["state"] != "COMPLETED" or len(out) >= ASSEMBLE_STEPS:
            continue
        rows = rows_dir(pw, s)
        if not os.path.lexists(rows):
            continue  # nothing was recorded (not an MPI program, say)
        rc, why = as_user(pw, [profile_cmd, "--rows", rows, "--app", app, "--threads", str(g["threads"])])
        out.append((s["id"], "assembled" if rc == 0 else why or "exit status %d" % rc))
        if rc == 0:
            break
    return out


def state_of(key, g):
    """(recorded: the user's store has the profile, text for status)."""
    _, app, user = key
    pw = user_of(user)
    has = pw is not None and g["threads"] in store_threads(pw.pw_dir, app)
    done = [s for s in g["steps"] if s["state"] == "COMPLETED"]
    failed = [s for s in g["steps"] if s["state"] != "COMPLETED"]
    if has:
        text = "recorded: %s's own store has %s at %d thread%s (its profile-guided candidates steer %s's jobs alone; " \
               "slurm-pin autopilot promote %s --user %s makes them everyone's)" % (
                   user, app, g["threads"], "s" * (g["threads"] != 1), user, app, user)
    elif done and pw is not None and any(os.path.lexists(rows_dir(pw, s)) for s in done):
        text = "recorded by %s (%s): not assembled yet (decide does it, as %s)" % (
            user, ", ".join(s["id"] for s in done[:5]), user)
    elif done:
        text = "nothing recorded by %s's %s: no rank wrote its row (ranks not started by srun, or no MPI " \
               "program; --pin-verbose says why)" % (user, ", ".join(s["id"] for s in done[:5]))
    else:
        text = "recording by %s: no step completed yet" % user
    if failed:
        text += "; did not complete: " + ", ".join("%s (%s)" % (s["id"], s["state"]) for s in failed[:5])
    return has, text


def recorded_text(entries, lua_string):
    """The learned file's recorded list."""
    lines = []
    for (rule, app, user), g in sorted(entries.items()):
        jobs = sorted({s["job"] for s in g["steps"]})
        # The job's tasks as the policy saw them (a step of mpirun's daemons
        # has a task per node, not per rank), else the steps' own.
        ranks = max((int(s["decision"]["tasks"]) if s["decision"].get("tasks", "").isdigit() else s["tasks"]
                     for s in g["steps"]), default=0)
        lines.append("    { rule = %s, app = %s, user = %s, threads = %d, job = %d, ranks = %d }," % (
            lua_string(rule), lua_string(app), lua_string(user), g["threads"], jobs[0] if jobs else 0, ranks))
    return lines


def promote(app, user, threads, profiles_cmd):
    """The user's profile of `app` copied into the site store: exported by
    the user (slurm-pin profiles export, as them), imported by the admin.
    Returns (exit status, message)."""
    pw = user_of(user)
    if pw is None:
        return 1, "no user %s on this host" % user
    have = store_threads(pw.pw_dir, app)
    if not have:
        return 1, "%s's own store has no profile of %s (decide assembles recordings first)" % (user, app)
    if threads is None:
        if len(have) > 1:
            return 1, "%s's store has %s at %s threads: give --threads" % (
                user, app, ", ".join(str(t) for t in sorted(have)))
        threads = next(iter(have))
    if threads not in have:
        return 1, "%s's own store has no profile of %s at %d threads" % (user, app, threads)
    store = os.path.join(pw.pw_dir, USER_STORE)
    cmd = user_command(pw, [profiles_cmd, "export", app, "--threads", str(threads), "--store", store])
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=ASSEMBLE_SECONDS, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as e:
        return 1, "cannot export %s's profile: %s" % (user, e)
    if out.returncode != 0 or len(out.stdout) > (64 << 20):
        return 1, "cannot export %s's profile: %s" % (user, out.stderr.decode(errors="replace").strip()[-300:])
    with tempfile.TemporaryDirectory(prefix="slurm-pin-promote.") as d:
        path = os.path.join(d, "%s.profile" % app)
        with open(path, "wb") as f:
            f.write(out.stdout)
        res = subprocess.run([profiles_cmd, "import", path, "--app", app], capture_output=True, text=True,
                             errors="replace", timeout=ASSEMBLE_SECONDS, cwd="/")
    if res.returncode != 0:
        return res.returncode, (res.stderr or "").strip()[-300:]
    return 0, (res.stdout + res.stderr).strip()
