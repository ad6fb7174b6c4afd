# SPDX-License-Identifier: GPL-2.0-or-later
"""slurm-pin autopilot: what the site's own runs say about each explored
application (docs/autopilot.md).

Jobs of an application an explore rule names get the candidates in turn
(lua/slurm_pin_policy.lua, explore); each job's decision is in its
AdminComment ("... strategy=S ... explore=APP"). Here Slurm's accounting
(sacct) gives every step's elapsed time, state and shape; steps are grouped
by rule, application, step name, partition and shape, so that different
shapes are never compared, and each group is judged with the Speedup-Test
exactly as `slurm-pin evaluate` applies it (evaluate_report.analyse_figure:
mean and median against the baseline none, finalists against each other,
Holm over every comparison).

Looking more than once: a group is judged only at planned looks, when every
candidate still in play has n_k = ceil(k N / 4) runs (k = 1..4, N the
rule's runs), on the first n_k runs of each, so a look's verdict is the same
however often status or decide is run. Look k tests at alpha_k = alpha (t_k^2
- t_(k-1)^2), t_k = n_k / N (the power family of alpha-spending functions,
rho = 2): the looks together spend at most alpha (a union bound, whatever
the looks' correlation), the risk the site asked for. A candidate that is a
significant slowdown at a look stops being given; one that is a significant
speedup decides the group; at the last look with neither, no candidate beat
the baseline and the group keeps none."""
import argparse
import json
import math
import os
import re
import secrets
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import autopilot_traffic  # noqa: E402
import evaluate_report  # noqa: E402
from evaluate_report import lua_comment, lua_string  # noqa: E402
from speedup_test import AnalysisError, summarize  # noqa: E402

BASELINE = "none"
LOOKS = 4
RHO = 2
LEARNED_FILE = "learned.lua"  # lua/slurm_pin_policy.lua M.LEARNED_FILE
# sacct's fields. Job and step names and submit lines are the users' text:
# each sacct run separates fields with a token of its own (separator()),
# which no user can know in advance, so no name can end a field or a line
# of its own making (accounting_rows).
FIELDS = ["JobID", "JobName", "User", "Account", "Partition", "State", "ElapsedRaw", "NNodes", "NTasks",
          "AllocCPUS", "SubmitLine", "AdminComment"]
SEP = "\x1f"  # what --sacct-file holds


def separator():
    return "\x1f" + secrets.token_hex(12) + "\x1f"


# A step whose command line chose its own placement is the user's, not a run
# of the candidate the job was given.
OWN_CHOICE = re.compile(r"(^|\s)--(pin-[a-z-]+|cpu-bind|cpu_bind)(=|\s|$)")


def die(message):
    sys.stderr.write("slurm-pin autopilot: %s\n" % message)
    sys.exit(1)


# ---- the rules --------------------------------------------------------------

class Rule:
    def __init__(self, name, runs, candidates, apps, record=0):
        self.name, self.runs, self.candidates, self.apps, self.record = name, runs, candidates, apps, record


def parse_explore(text):
    """`slurm-pin policy explore`'s lines: (policy path, autopilot dir, {name: Rule})."""
    policy, directory, rules = None, None, {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "policy":
            policy = words[1]
        elif len(words) == 2 and words[0] == "autopilot":
            directory = words[1]
        elif len(words) >= 5 and words[0] == "explore":
            kv = dict(w.split("=", 1) for w in words[2:])
            rules[words[1]] = Rule(words[1], int(kv["runs"]), kv["candidates"].split(","), kv["apps"].split(","),
                                   int(kv.get("record", "0")))
    return policy, directory, rules


# ---- outcomes from the accounting --------------------------------------------

def decision_fields(comment):
    """The slurm-pin decision in an AdminComment (its last part), as a dict."""
    last = (comment or "").split("|")[-1].strip()
    if not last.startswith("slurm-pin:"):
        return None
    out = {}
    for word in last[len("slurm-pin:"):].split():
        if "=" in word:
            k, v = word.split("=", 1)
            out[k] = v
    return out


JOB_ID = re.compile(r"([0-9]+)(?:\.([0-9]+|batch|extern|interactive))?")
NUMBER = re.compile(r"[0-9]+")


def accounting_rows(text, sep=SEP):
    """sacct's lines as dicts, each job's line with its steps' after it. A
    line is taken only whole (exactly FIELDS, its numbers numbers, a step
    right after its job), and an id seen twice is dropped with every line
    of that job: a name holding a newline breaks only its own job's lines.
    Returns (rows, lines not read)."""
    rows, dropped, current, seen, bad_jobs = [], 0, None, set(), set()
    for line in text.split("\n"):
        if not line:
            continue
        parts = line.split(sep)
        m = JOB_ID.fullmatch(parts[0]) if len(parts) == len(FIELDS) else None
        row = dict(zip(FIELDS, parts)) if m else None
        if row and not all(NUMBER.fullmatch(row[k]) for k in ("ElapsedRaw", "NNodes", "AllocCPUS")):
            row = None
        if row and m.group(2) is not None and m.group(1) != current:
            row = None  # a step away from its job's line
        if row is None:
            dropped += 1
            current = None
            continue
        if row["JobID"] in seen:
            bad_jobs.add(m.group(1))
        seen.add(row["JobID"])
        if m.group(2) is None:
            current = m.group(1)
        row["job"], row["step"] = int(m.group(1)), m.group(2)
        rows.append(row)
    kept = [r for r in rows if str(r["job"]) not in bad_jobs]
    return kept, dropped + len(rows) - len(kept)


def read_sacct(text, sep=SEP):
    """Explored runs from sacct's lines (FIELDS, sep): one dict per step of a
    job that was given a candidate, in job order."""
    rows, _ = accounting_rows(text, sep)
    jobs = {r["job"]: r for r in rows if r["step"] is None}
    steps = [dict(r, step=int(r["step"])) for r in rows if r["step"] is not None and r["step"].isdigit()]
    runs = []
    for s in steps:
        j = jobs.get(s["job"])
        d = decision_fields(j["AdminComment"]) if j else None
        if not d or "explore" not in d or d.get("applied") == "no":
            continue
        try:
            nodes, tasks, cpus = int(s["NNodes"]), int(s["NTasks"]), int(s["AllocCPUS"])
            elapsed = int(s["ElapsedRaw"])
        except ValueError:
            continue
        runs.append({
            "job": s["job"], "step": s["step"], "id": s["JobID"], "rule": d.get("rule", ""), "app": d["explore"],
            "strategy": d.get("strategy", ""), "decision": d, "name": s["JobName"], "partition": j["Partition"],
            "user": j["User"], "state": s["State"].split()[0] if s["State"] else "",
            "record": "record" in d, "tasks": tasks,
            "own_choice": bool(OWN_CHOICE.search(s["SubmitLine"] or "")),
            "elapsed": elapsed, "shape": (nodes, tasks, cpus // tasks if tasks else cpus, d.get("threads", ""),
                                          d.get("tasks", ""))})
    runs.sort(key=lambda r: (r["job"], r["step"]))
    return runs


def sacct(since, sep):
    # The window ends a day ahead: a job that just ended on a controller
    # whose clock runs ahead of this host's is still read.
    cmd = ["sacct", "-a", "-n", "-P", "--delimiter=" + sep, "--format=" + ",".join(FIELDS), "-S", since,
           "-E", "now+1days"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape", timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        die("cannot run sacct: %s (the autopilot reads Slurm's accounting: slurmdbd)" % e)
    if out.returncode != 0:
        die("sacct failed: %s (the autopilot reads Slurm's accounting: slurmdbd)" % out.stderr.strip().splitlines()[-1:])
    return out.stdout


# ---- the protocol at planned looks -------------------------------------------

def look_sizes(runs):
    """Runs per candidate at each planned look (at least 3, the protocol's smallest)."""
    sizes = []
    for k in range(1, LOOKS + 1):
        n = max(3, math.ceil(k * runs / LOOKS))
        if not sizes or n > sizes[-1]:
            sizes.append(min(n, runs))
    return sizes


def look_alphas(runs, alpha):
    """alpha_k per planned look: alpha (t_k^rho - t_(k-1)^rho)."""
    sizes, out, before = look_sizes(runs), [], 0.0
    for n in sizes:
        t = (n / runs) ** RHO
        out.append(alpha * (t - before))
        before = t
    return out


def judge_look(values, candidates, alpha):
    """The Speedup-Test as evaluate applies it on `values` ({strategy: times}),
    at risk alpha: (per-figure analysis, recommendation)."""
    config = {"alpha": alpha, "baseline": BASELINE, "strategies": [BASELINE] + [c for c in candidates if c != BASELINE]}
    result = evaluate_report.analyse_figure(config, values, False, "elapsed time")
    results = {"time": result}
    rec = evaluate_report.recommend(config, results, {"time": values})
    return result, rec


def slowdowns(result, candidates):
    return [c for c in candidates if c != BASELINE and
            any(result[c][x]["verdict"] == "slowdown" for x in ("mean", "median"))]


def judge_group(times, rule, alpha):
    """times: {strategy: [elapsed, ...]} in submission order. Replays the
    planned looks the data reached: which candidates stopped, and the
    group's state: exploring, decided (a strategy), or baseline kept."""
    sizes, alphas = look_sizes(rule.runs), look_alphas(rule.runs, alpha)
    active = [c for c in rule.candidates]
    stopped, looks = {}, []
    state = {"state": "exploring", "strategy": None, "look": 0, "looks": len(sizes), "why": "", "result": None,
             "alpha": None, "next": sizes[0]}
    for k, (n, a) in enumerate(zip(sizes, alphas), start=1):
        if any(len(times.get(c, [])) < n for c in active):
            state["next"] = n
            break
        values = {c: times[c][:n] for c in active}
        try:
            result, rec = judge_look(values, active, a)
        except AnalysisError as e:
            state.update(state="exploring", why=str(e), look=k)
            break
        looks.append({"look": k, "runs": n, "alpha": a, "result": result, "recommendation": rec})
        state.update(look=k, alpha=a, result=result, runs=n)
        for c in slowdowns(result, active):
            stopped[c] = k
        if rec["decided"] and rec["strategy"] != BASELINE:
            state.update(state="decided", strategy=rec["strategy"], why=rec["why"])
            break
        active = [c for c in active if c not in stopped]
        if k == len(sizes) or len(active) == 1:
            state.update(state="baseline", strategy=BASELINE,
                         why="no candidate was significantly faster than %s by look %d of %d (%d runs each)"
                         % (BASELINE, k, len(sizes), n))
            break
        state["next"] = sizes[k] if k < len(sizes) else None
    state["stopped"], state["looks_done"], state["active"] = stopped, looks, active
    return state


# ---- groups ------------------------------------------------------------------

def group_runs(runs, rules):
    """{key: {"runs": [...], "failed": [...], "own": [...]}} per rule,
    application, step name, partition and shape."""
    groups = {}
    for r in runs:
        rule = rules.get(r["rule"])
        if rule is None or r["strategy"] not in rule.candidates or r["record"]:
            continue  # a recording job ran with the recorder: no candidate's run
        key = (r["rule"], r["app"], r["name"], r["partition"], r["shape"])
        g = groups.setdefault(key, {"runs": [], "failed": [], "own": []})
        if r["own_choice"]:
            g["own"].append(r)
        elif r["state"] != "COMPLETED":
            g["failed"].append(r)
        else:
            g["runs"].append(r)
    return groups


def shape_text(shape):
    nodes, tasks, cpt, threads, _ = shape
    out = "%d node%s, %d task%s, %d CPU%s per task" % (nodes, "s" * (nodes != 1), tasks, "s" * (tasks != 1),
                                                       cpt, "s" * (cpt != 1))
    return out + (", %s threads" % threads if threads else "")


def analyse(runs, rules, alpha):
    out = []
    for key, g in sorted(group_runs(runs, rules).items()):
        rule = rules[key[0]]
        times = {c: [r["elapsed"] for r in g["runs"] if r["strategy"] == c] for c in rule.candidates}
        out.append({"key": key, "rule": rule, "group": g, "times": times, "judged": judge_group(times, rule, alpha)})
    return out



# ---- status ------------------------------------------------------------------

def verdict_text(result, c):
    if c == BASELINE:
        return "baseline"
    e = result[c]
    return "mean %s %.2fx, median %s %.2fx" % (e["mean"]["verdict"], e["mean"]["speedup"], e["median"]["verdict"],
                                                e["median"]["speedup"])


def shown(text):
    """A user's text (a step's name) as a terminal may show it: control and
    non-ASCII bytes as \\ddd, at most 80 characters."""
    out = "".join(c if 32 <= ord(c) < 127 and c != "\\" else "\\%03d" % (ord(c) & 0xff) for c in text[:80])
    return out + ("..." if len(text) > 80 else "")


def recordings_text(states):
    """Each recording's state: (rule, app, user) -> text."""
    lines = []
    for (rule, app, user), text in sorted(states.items()):
        lines.append("%s: MPI traffic (rule %s): %s" % (app, rule, text))
    return "\n".join(lines) + "\n\n" if lines else ""


def status_text(analysis, alpha, states=None):
    head = recordings_text(states or {})
    if not analysis:
        return head + "no explored runs yet (jobs of the applications explore rules name, with the candidates applied)\n"
    lines = [head.rstrip("\n")] if head else []
    if head:
        lines.append("")
    for a in analysis:
        rule, (explore_rule, app, step, partition, shape), j = a["rule"], a["key"], a["judged"]
        owner = own_profile_of(a)
        lines.append("%s: step %s, partition %s, %s (rule %s)" % (app, shown(step), partition, shape_text(shape),
                                                                    explore_rule))
        spent = "alpha %.4g at this look (%.3g over %d looks, alpha t^2)" % (j["alpha"], alpha, j["looks"]) \
            if j["alpha"] is not None else "no look yet (the first at %d runs of each candidate)" % j["next"]
        lines.append("  look %d of %d: %s" % (j["look"], j["looks"], spent))
        rows = [["candidate", "runs", "mean s", "median s", "against %s" % BASELINE, "state"]]
        for c in rule.candidates:
            t = a["times"].get(c, [])
            summary = summarize(t) if t else None
            mean = "%.2f" % summary.mean if t else "-"
            median = "%.2f" % summary.median if t else "-"
            verdict = verdict_text(j["result"], c) if j["result"] and c in j["result"] else "-"
            if c in j["stopped"]:
                state = "stopped: slower at look %d" % j["stopped"][c]
            elif j["state"] == "decided":
                state = "chosen" if c == j["strategy"] else "-"
            elif j["state"] == "baseline":
                state = "kept" if c == BASELINE else "not faster"
            else:
                state = "exploring"
            rows.append([c, str(len(t)), mean, median, verdict, state])
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            lines.append("  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
        base = a["times"].get(BASELINE, [])
        if len(base) > 1:
            lines.append("  noise: RV of %s %.0f%% ((max - min) / max of its elapsed times)"
                         % (BASELINE, 100 * summarize(base).rv))
        if a["group"]["failed"]:
            lines.append("  not counted, did not complete: " + ", ".join(
                "%s (%s, %s)" % (r["id"], r["strategy"], r["state"]) for r in a["group"]["failed"][:10]))
        if a["group"]["own"]:
            lines.append("  not counted, placed by the user's own --pin-*/--cpu-bind: %d steps" % len(a["group"]["own"]))
        if j["state"] == "exploring":
            need = {c: max(0, j["next"] - len(a["times"].get(c, []))) for c in j["active"]} if j["next"] else {}
            lines.append("  next look at %d runs each: still needed %s" % (
                j["next"], ", ".join("%s %d" % (c, n) for c, n in need.items())) if need else "  " + j["why"])
        elif j["state"] == "decided" and owner:
            lines.append("  faster: %s (%s), with %s's own profile: promote it to decide (slurm-pin autopilot promote "
                         "%s --user %s)" % (j["strategy"], j["why"], owner, app, owner))
        elif j["state"] == "decided":
            lines.append("  decided: %s (%s)" % (j["strategy"], j["why"]))
        else:
            lines.append("  decided: keep %s: %s" % (BASELINE, j["why"]))
        lines.append("")
    return "\n".join(lines)


# ---- decide: the learned file --------------------------------------------------

ACTION_KEYS = ("profile", "mem", "granularity", "thread_binding")


def rule_name(app, partition, shape):
    """autopilot-APP-PARTITION-N1-n4-c2-t2: letters, digits and . _ + - (a
    policy rule name), at most 100."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "-", "autopilot-%s-%s-N%d-n%d-c%d%s" % (
        app, partition, shape[0], shape[1], shape[2], "-t" + shape[3] if shape[3] else ""))[:100]


def rule_text(a, alpha, name):
    """One learned rule, the evidence in comments above it."""
    (explore_rule, app, step, partition, shape), j = a["key"], a["judged"]
    best = j["strategy"]
    runs_of = [r for r in a["group"]["runs"] if r["strategy"] == best]
    d = runs_of[-1]["decision"] if runs_of else {}
    action = ["strategy = %s" % lua_string(best)]
    if best != BASELINE:
        for k in ACTION_KEYS:
            if d.get(k):
                action.append("%s = %s" % (k, lua_string(d[k])))
    env = sorted((k[4:], v) for k, v in d.items() if k.startswith("env.")) if best != BASELINE else []
    if env:
        action.append("env = { %s }" % ", ".join("%s = %s" % (k, lua_string(urllib.parse.unquote(v))) for k, v in env))
    match = ["app = %s" % lua_string(app), "partition = %s" % lua_string(partition),
             "nodes = { min = %d, max = %d }" % (shape[0], shape[0])]
    for key, n in (("tasks", shape[4]), ("threads", shape[3])):
        if n:
            match.append("%s = { min = %s, max = %s }" % (key, n, n))
    means = ", ".join("%s %s" % (c, "%.2f s over %d runs" % (summarize(t).mean, len(t)) if t else "no runs")
                      for c, t in a["times"].items())
    head = ["    -- %s" % lua_comment("%s, step %s, partition %s, %s (explore rule %s)" % (
                app, step, partition, shape_text(shape), explore_rule)),
            "    -- %s" % lua_comment("look %d of %d at %d runs each, alpha %.4g (%.3g spent over the looks as alpha t^2)"
                                      % (j["look"], j["looks"], j.get("runs", 0), j["alpha"] or 0, alpha)),
            "    -- %s" % lua_comment("mean elapsed: " + means),
            "    -- %s" % lua_comment(("chosen: %s: %s" % (best, j["why"])) if j["state"] == "decided"
                                      else "no candidate beats %s: %s" % (BASELINE, j["why"]))]
    return "\n".join(head + ["    { name = %s, learned_by = %s," % (lua_string(name), lua_string(explore_rule)),
                             "      match = { %s }," % ", ".join(match),
                             "      action = { %s } }," % ", ".join(action)])


def own_profile_of(a):
    """The user whose own profile (store=user) the decided candidate's last
    run used, or None: such a rule would steer everyone's jobs by one user's
    recording, so it waits until an admin promotes the profile."""
    j = a["judged"]
    runs_of = [r for r in a["group"]["runs"] if r["strategy"] == j["strategy"]]
    if j["state"] == "decided" and runs_of and runs_of[-1]["decision"].get("store") == "user":
        return runs_of[-1]["user"]
    return None


def learned_text(analysis, alpha, recorded=()):
    """The learned file. Groups the policy cannot tell apart (one application,
    partition and shape, two step names) give rules of one match: the first
    one written wins, and their names are kept distinct. `recorded`: the
    recorded list's lines (autopilot_traffic.recorded_text)."""
    rules, stopped, names = [], [], set()
    for a in analysis:
        j = a["judged"]
        owner = own_profile_of(a)
        if owner:
            rules.append("    -- %s" % lua_comment(
                "%s: %s was faster with %s's own profile; no rule until an admin promotes it "
                "(slurm-pin autopilot promote %s --user %s)" % (a["key"][1], j["strategy"], owner, a["key"][1], owner)))
        elif j["state"] in ("decided", "baseline"):
            name = base = rule_name(a["key"][1], a["key"][3], a["key"][4])
            k = 1
            while name in names:
                k += 1
                name = "%s-%d" % (base[:96], k)
            names.add(name)
            rules.append(rule_text(a, alpha, name))
        elif j["stopped"]:
            for c, k in sorted(j["stopped"].items()):
                stopped.append("    { rule = %s, app = %s, strategy = %s },  -- %s" % (
                    lua_string(a["rule"].name), lua_string(a["key"][1]), lua_string(c),
                    lua_comment("slower than %s at look %d, step %s, %s" % (BASELINE, k, a["key"][2],
                                                                             shape_text(a["key"][4])))))
    out = ["-- Written by slurm-pin autopilot decide: what the site's runs showed (docs/autopilot.md).",
           "-- The policy's autopilot key reads it; each decide writes it anew from the accounting.",
           "return {", "  rules = {"] + rules + ["  },", "  stopped = {"] + stopped + ["  },",
                                                    "  recorded = {"] + list(recorded) + ["  },", "}"]
    return "\n".join(out) + "\n"


def write_learned(directory, text):
    """DIR/learned.lua replaced at once, by DIR's owner (root): slurmctld
    reads only a file of root or the directory's owner."""
    try:
        st = os.stat(directory)
    except OSError as e:
        die("%s: %s (create it: install -d -m 755 %s)" % (directory, e.strerror, directory))
    if st.st_mode & 0o022 or st.st_uid not in (0, os.geteuid()):
        die("%s must belong to root (or you) and be writable by its owner alone" % directory)
    if os.geteuid() != st.st_uid:
        die("%s belongs to uid %d: run decide as its owner" % (directory, st.st_uid))
    fd, tmp = tempfile.mkstemp(prefix=".learned.", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, os.path.join(directory, LEARNED_FILE))


# ---- main ------------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(prog="slurm-pin autopilot", description="what the site's runs say about each "
                                "explored application (docs/autopilot.md)")
    p.add_argument("command", choices=["status", "decide", "promote"])
    p.add_argument("app", nargs="?", help="promote: the application")
    p.add_argument("--user", help="promote: whose own profile")
    p.add_argument("--threads", type=int, help="promote: its thread count, when the user's store has several")
    p.add_argument("--profile-command", default="slurm-pin-profile", help="slurm-pin profile, run as each user")
    p.add_argument("--profiles-command", default="slurm-pin-profiles", help="slurm-pin profiles")
    p.add_argument("--explore", required=True, help="slurm-pin policy explore's output (a file)")
    p.add_argument("--since", default="now-90days", help="the accounting read from this time (sacct -S) [now-90days]")
    p.add_argument("--alpha", type=float, default=0.05, help="the risk over all looks [0.05]")
    p.add_argument("--sacct-file", help="sacct's lines (FIELDS, unit separator) instead of running sacct")
    p.add_argument("--dry-run", action="store_true", help="decide: print the learned file, write nothing")
    p.add_argument("--json", help="also write the analysis as JSON here")
    o = p.parse_args(argv)
    if not 0 < o.alpha < 1:
        die("--alpha must be between 0 and 1")
    if o.command == "promote":
        if not o.app or not o.user:
            die("promote takes the application and --user USER (whose own profile)")
        rc, message = autopilot_traffic.promote(o.app, o.user, o.threads, o.profiles_command)
        (sys.stdout if rc == 0 else sys.stderr).write(("" if rc == 0 else "slurm-pin autopilot: ") + message + "\n")
        return rc
    if o.app:
        die("%s takes no application" % o.command)
    with open(o.explore) as f:
        policy, directory, rules = parse_explore(f.read())
    if not rules:
        die("the policy %s has no explore rule (docs/autopilot.md)" % policy)
    if o.sacct_file:
        with open(o.sacct_file, errors="surrogateescape", newline="") as f:
            text, sep = f.read(), SEP
    else:
        sep = separator()
        text = sacct(o.since, sep)
    runs = read_sacct(text, sep)
    analysis = analyse(runs, rules, o.alpha)
    recs = autopilot_traffic.recordings(runs, rules)
    if o.command == "decide" and not o.dry_run:
        for key, g in recs.items():
            for step, outcome in autopilot_traffic.assemble(key, g, o.profile_command):
                if outcome != "assembled":
                    sys.stderr.write("slurm-pin autopilot: %s: the rows of step %s: %s\n" % (key[1], step, outcome))
    states = {key: autopilot_traffic.state_of(key, g) for key, g in recs.items()}
    if o.json:
        with open(o.json, "w") as f:
            json.dump([{"rule": a["key"][0], "app": a["key"][1], "step": a["key"][2], "partition": a["key"][3],
                        "shape": list(a["key"][4]), "times": a["times"], "state": a["judged"]["state"],
                        "strategy": a["judged"]["strategy"], "look": a["judged"]["look"],
                        "stopped": a["judged"]["stopped"]} for a in analysis], f, indent=1)
    if o.command == "status":
        sys.stdout.write(status_text(analysis, o.alpha, {k: v[1] for k, v in states.items()}))
        return 0
    recorded = autopilot_traffic.recorded_text({k: g for k, g in recs.items() if states[k][0]}, lua_string)
    learned = learned_text(analysis, o.alpha, recorded)
    if o.dry_run or not directory:
        sys.stdout.write(learned)
        if not directory:
            sys.stderr.write("slurm-pin autopilot: the policy %s has no autopilot = DIR: nothing written\n" % policy)
        return 0
    write_learned(directory, learned)
    decided = sum(1 for a in analysis if a["judged"]["state"] != "exploring")
    print("%s/%s: %d group%s decided, %d exploring" % (directory, LEARNED_FILE, decided, "s" * (decided != 1),
                                                     len(analysis) - decided))
    return 0


if __name__ == "__main__":
    sys.exit(main())
