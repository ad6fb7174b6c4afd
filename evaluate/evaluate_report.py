# SPDX-License-Identifier: GPL-2.0-or-later
"""slurm-pin evaluate's analysis: from the journal slurm-pin-evaluate keeps
(its configuration, then one line per run as it finished), the statistics of
every strategy against the baseline (speedup_test.py, the seed's protocol),
as text tables, a JSON file with every raw run, a Markdown report with
violin plots, and a policy rule for the strategy the protocol supports.

Every analysis error is one line on stderr (exit status 1), never a
traceback: the runs stay in the journal whatever happens here."""
import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exact_tests  # noqa: E402
import speedup_test  # noqa: E402
from speedup_test import AnalysisError  # noqa: E402

CONFIG_TAG = "#config\t"
MANY_RUNS = 1000  # beyond this, advising more runs is advising to give up


class JournalError(ValueError):
    """A journal this version cannot read."""


def die(message):
    sys.stderr.write("slurm-pin: error: %s\n" % message)
    sys.exit(1)


# ---- the journal ---------------------------------------------------------

def read_journal(path):
    """(configuration, runs): the first line is the configuration as JSON,
    every later line one run: run STRATEGY ROUND SECONDS EXIT [FIGURE]."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    # A line without its newline was cut off while written: that run never finished.
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")[:-1] or [text]
    if not lines[0].startswith(CONFIG_TAG):
        raise JournalError("%s is not a slurm-pin evaluate journal (its first line is no #config)" % path)
    try:
        config = json.loads(lines[0][len(CONFIG_TAG):])
    except ValueError as e:
        raise JournalError("%s: its configuration line is not JSON (%s)" % (path, e))
    runs = []
    for number, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        try:
            if f[0] != "run" or len(f) != 6:
                raise ValueError("not a run line")
            runs.append({"strategy": f[1], "round": int(f[2]), "seconds": float(f[3]), "exit": int(f[4]),
                         "metric": float(f[5]) if f[5] else None})
        except ValueError as e:
            raise JournalError("%s:%d: %s" % (path, number, e))
    return config, runs


def config_shell(config):
    """The configuration as bash assignments for slurm-pin-evaluate
    --resume, every value quoted."""
    q = shlex.quote
    scalars = {"runs": config["runs"], "strategies": ",".join(config["strategies"]),
               "baseline": config["baseline"], "profile": config.get("profile") or "",
               "noise": config["noise"], "noise_kind": config["noise_kind"], "alpha": config["alpha"],
               "nodes": config.get("nodes") or "", "ntasks": config.get("ntasks") or "",
               "cpus": config.get("cpus_per_task") or "", "metric": config.get("metric") or "",
               "metric_better": config.get("metric_better") or "lower", "seed": config["seed"],
               "app": config["app"], "welch_large": int(bool(config.get("welch_large"))),
               "wmw_any_size": int(bool(config.get("wmw_any_size"))),
               "ks_centred": int(bool(config.get("ks_centred")))}
    out = ["%s=%s" % (k, q(str(v))) for k, v in scalars.items()]
    for name in ("command", "srun_args"):
        out.append("%s=(%s)" % (name, " ".join(q(str(v)) for v in config.get(name) or [])))
    return "\n".join(out) + "\n"


# ---- the analysis ----------------------------------------------------------

def noise_text(config):
    k = config.get("noise") or 0
    if not k:
        return ""
    return "%d %s-bound noise process%s" % (k, "CPU" if config["noise_kind"] == "cpu" else config["noise_kind"],
                                           "" if k == 1 else "es")


def options_of(config):
    return speedup_test.Options(alpha=float(config["alpha"]), welch_large=bool(config.get("welch_large")),
                                wmw_any_size=bool(config.get("wmw_any_size")),
                                ks_centred=bool(config.get("ks_centred")))


def finished(config, run):
    """A run that counts: it exited 0 and, under --metric, printed its
    figure (slurm-pin-evaluate runs any other again on --resume)."""
    return run["exit"] == 0 and (not config.get("metric") or run["metric"] is not None)


def samples(config, runs, key):
    """The figure `key` (seconds or metric) of every finished run, per strategy."""
    return {s: [r[key] for r in runs if r["strategy"] == s and finished(config, r)] for s in config["strategies"]}


def check_figure(values, label):
    """Every strategy has runs with a positive figure, or AnalysisError."""
    for s, v in values.items():
        if not v:
            raise AnalysisError("%s: %s has no finished run" % (label, s))
        bad = [x for x in v if not x > 0 or math.isinf(x)]
        if bad:
            raise AnalysisError("%s: %s is %g in %d of %d runs: a speedup needs positive figures "
                                "(print the figure with more digits, or measure a longer run)"
                                % (label, s, bad[0], len(bad), len(v)))


def analyse_figure(config, values, higher_better, label):
    """Per strategy: its summary, and against the baseline the protocol's
    decisions on the mean and the median. A rate (higher is better) swaps
    the samples, so a speedup is always strategy better than baseline."""
    check_figure(values, label)
    opts, base = options_of(config), config["baseline"]
    out = {}
    for s in config["strategies"]:
        entry = {"summary": vars(speedup_test.summarize(values[s]))}
        if s != base:
            pair = (values[s], values[base]) if higher_better else (values[base], values[s])
            entry["mean"] = speedup_test.as_dict(speedup_test.mean_decision(*pair, opts))
            entry["median"] = speedup_test.as_dict(speedup_test.median_decision(*pair, opts))
        out[s] = entry
    out["finalists"] = finalist_pairs(config, values, higher_better, out)
    correct(config, out)
    return out


def finalist_pairs(config, values, higher_better, out):
    """The finalists (each strategy the protocol finds faster than the
    baseline, before Holm's correction) against each other, each pair in
    --strategies order: "speedup" means the second is the faster. Two
    strategies both faster than the baseline may be no different from each
    other: the recommendation says so rather than pick one on noise."""
    opts, base = options_of(config), config["baseline"]
    finalists = [s for s in config["strategies"] if s != base and
                 any(out[s][c]["verdict"] == "speedup" for c in ("mean", "median"))]
    pairs = []
    for i, a in enumerate(finalists):
        for b in finalists[i + 1:]:
            pair = (values[b], values[a]) if higher_better else (values[a], values[b])
            pairs.append({"first": a, "second": b,
                          "mean": speedup_test.as_dict(speedup_test.mean_decision(*pair, opts)),
                          "median": speedup_test.as_dict(speedup_test.median_decision(*pair, opts))})
    return pairs


def comparisons(config):
    """Every test of a figure against the baseline: each strategy's mean and median."""
    return [(s, c) for s in config["strategies"] if s != config["baseline"] for c in ("mean", "median")]


def decisions(config, result):
    """Every decision made on a figure: each strategy's two against the
    baseline, then each pair of finalists' two."""
    out = [result[s][c] for s, c in comparisons(config)]
    return out + [pair[c] for pair in result.get("finalists", []) for c in ("mean", "median")]


def correct(config, result):
    """One verdict per comparison, the one every output shows: comparing
    several strategies with one baseline makes 2 x (strategies - 1) tests,
    and each pair of finalists two more, so a speedup or slowdown stands
    only if Holm's step-down correction over all of them at family-wise
    risk alpha keeps it; one it does not keep becomes "not significant"
    (its protocol verdict stays in verdict_uncorrected)."""
    tests = decisions(config, result)
    decisive = ("speedup", "slowdown")
    p = [d["p_value"] if d["verdict"] in decisive else None for d in tests]
    kept = speedup_test.holm(p, float(config["alpha"]))
    for index, d in enumerate(tests):
        d["verdict_uncorrected"] = d["verdict"]
        d["holm"] = {"comparisons": len(tests), "kept": index in kept}
        if d["verdict"] in decisive and index not in kept:
            d["verdict"] = "not significant"


def analyse(config, runs):
    """{"time": ..., "metric": ...}: each the analysis of one figure, or
    {"error": one line} when the protocol cannot take it."""
    figures = {"time": ("wall time", samples(config, runs, "seconds"), False)}
    if config.get("metric"):
        figures["metric"] = ("the program's figure", samples(config, runs, "metric"),
                             config.get("metric_better") == "higher")
    results = {}
    for key, (label, values, higher) in figures.items():
        try:
            results[key] = analyse_figure(config, values, higher, label)
        except AnalysisError as e:
            results[key] = {"error": str(e)}
    return results, {k: v[1] for k, v in figures.items()}


# ---- the recommendation ----------------------------------------------------

def recommend(config, results, values):
    """The strategy the protocol supports on the deciding figure (the
    program's with --metric, else wall time): a speedup of its mean or of its
    median that survives Holm's correction over every comparison made (two
    per strategy against one baseline) at family-wise risk alpha (the
    verdicts correct() leaves); the largest such speedup wins (of a strategy
    both declare, the smaller of its two). Nothing is recommended when none
    survives, and when the protocol could not decide the advice is how many
    runs would let it."""
    key = "metric" if config.get("metric") else "time"
    base, alpha = config["baseline"], float(config["alpha"])
    out = {"figure": key, "strategy": base, "baseline": base, "decided": False, "runs_needed": None, "comparisons": 0,
           "failed": False}
    r, v = results[key], values[key]
    if "error" in r:
        out.update(failed=True, why="nothing can be decided: %s" % r["error"])
        return out
    others = [s for s in config["strategies"] if s != base]
    tests = decisions(config, r)
    out["comparisons"] = len(tests)
    holm_note = "Holm over %d comparisons at %s" % (len(tests), config["alpha"])
    best, best_speedup, best_why = None, 1.0, ""
    for s in others:
        declared = [c for c in ("mean", "median") if r[s][c]["verdict"] == "speedup"]
        if not declared or any(r[s][c]["verdict"] == "slowdown" for c in ("mean", "median")):
            continue
        c = min(declared, key=lambda c: r[s][c]["speedup"])
        if r[s][c]["speedup"] > best_speedup:
            best, best_speedup = s, r[s][c]["speedup"]
            best_why = "speedup of the %s %.3f over %s (%s, p = %s; %s)" % (
                c, r[s][c]["speedup"], base, r[s][c]["test"], fmt_p(r[s][c]["p_value"]), holm_note)
    if best:
        # A finalist the protocol finds no different from the best is named:
        # the evidence does not choose between them.
        same = [pair["second"] if pair["first"] == best else pair["first"] for pair in r.get("finalists", [])
                if best in (pair["first"], pair["second"]) and
                all(pair[c]["verdict"] not in ("speedup", "slowdown") for c in ("mean", "median"))]
        if same:
            best_why += "; %s %s not measurably different from %s (%s)" % (
                ", ".join(same), "is" if len(same) == 1 else "are", best, holm_note)
            out["same_as_recommended"] = same
        out.update(strategy=best, decided=True, why=best_why)
        return out
    # Undecided: a "need more runs", or a speedup Holm's correction does not keep.
    undecided = [s for s in others if any(r[s][c]["verdict"] == "need more runs"
                                          or r[s][c]["verdict_uncorrected"] == "speedup" for c in ("mean", "median"))]
    if undecided:
        # Per strategy, the runs its observed difference needs at the corrected risk.
        need = {s: speedup_test.runs_needed(v[base], v[s], alpha / len(tests)) for s in undecided}
        first = min(undecided, key=lambda s: need[s])
        rv = max(r[s]["summary"]["rv"] for s in [base] + undecided)
        out["runs_needed"] = need[first]
        out["runs_needed_by"] = need
        if need[first] > MANY_RUNS:
            advice = "more than %d runs per strategy: any difference is small against the variability" % MANY_RUNS
        else:
            advice = "about %d runs per strategy (--runs %d) to decide %s" % (need[first], need[first], first)
            advice += "".join(", %s about %d" % (s, need[s]) if need[s] <= MANY_RUNS else ", %s more than %d" % (s, MANY_RUNS)
                              for s in undecided if s != first)
        out["why"] = "the protocol cannot decide %s against %s with %d runs (RV up to %.0f%%): the data suggest %s" % (
            ", ".join(undecided), base, r[base]["summary"]["runs"], 100 * rv, advice)
        return out
    out["why"] = "no strategy is significantly faster than %s (%s)" % (base, holm_note)
    return out


# ---- text ------------------------------------------------------------------

def fmt_p(p):
    return "-" if p is None else "%.3g" % p


def columns(rows, right=()):
    """Rows of cells as aligned text: every column as wide as its widest
    cell; the columns in `right` aligned right (numbers)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def number_format(values):
    """One format for a column of figures: four significant digits of the
    largest, the same decimals for all."""
    top = max(abs(v) for v in values) or 1.0
    return "%%.%df" % max(0, 3 - math.floor(math.log10(top)))


def decision_text(d):
    return "%.3f %s" % (d["speedup"], d["verdict"])


def test_text(d):
    """The test that decided and its p-value; P[X > Y] for a median; a
    verdict Holm's correction did not keep says so."""
    text = "%s, p = %s" % (d["test"], fmt_p(d["p_value"])) if d["p_value"] is not None else d["test"]
    if d.get("p_x_greater_y") is not None:
        text += ", P[X>Y] = %.2f" % d["p_x_greater_y"]
    if d.get("verdict_uncorrected", d["verdict"]) != d["verdict"]:
        text += "; a %s alone, not kept by Holm over %d" % (d["verdict_uncorrected"], d["holm"]["comparisons"])
    return text


def figure_table(config, result, unit):
    """The summary of every strategy, then its two decisions with the test
    that made each and its p-value."""
    if "error" in result:
        return "cannot analyse: " + result["error"]
    u = " (%s)" % unit if unit else ""
    rows = [["strategy", "runs", "mean" + u, "median" + u, "q1", "q3", "RV"]]
    keys = ("mean", "median", "q1", "q3")
    number = number_format([result[s]["summary"][k] for s in config["strategies"] for k in keys])
    for s in config["strategies"]:
        t = result[s]["summary"]
        rows.append([s, str(t["runs"])] + [number % t[k] for k in keys] + ["%.1f%%" % (100 * t["rv"])])
    text = columns(rows, right=range(1, 7))
    rows = [["strategy", "speedup of the mean", "decided by", "speedup of the median", "decided by"]]
    for s in config["strategies"]:
        if s == config["baseline"]:
            continue
        m, md = result[s]["mean"], result[s]["median"]
        rows.append([s, decision_text(m), test_text(m), decision_text(md), test_text(md)])
    text += "\n\n" + columns(rows)
    if result.get("finalists"):
        rows = [["finalists against each other", "speedup of the mean", "decided by", "speedup of the median",
                 "decided by"]]
        for pair in result["finalists"]:
            m, md = pair["mean"], pair["median"]
            rows.append(["%s over %s" % (pair["second"], pair["first"]), decision_text(m), test_text(m),
                         decision_text(md), test_text(md)])
        text += "\n\n" + columns(rows)
    return text


def tables(config, results):
    """Wall time, then the program's own figure when --metric is given."""
    head = "Speedup-Test against %s at risk %s%s" % (config["baseline"], config["alpha"], "".join(
        "; " + o for o, on in (("Welch's t-test from 31 runs (--welch-large)", config.get("welch_large")),
                                ("Wilcoxon-Mann-Whitney at any size (--wmw-any-size)", config.get("wmw_any_size")),
                                ("Kolmogorov-Smirnov on centred samples, then Wilcoxon-Mann-Whitney at any size "
                                 "(--ks-centred)", config.get("ks_centred")))
        if on))
    same = config.get("same_placement") or {}
    for kept in dict.fromkeys(same.values()):
        twins = sorted(s for s, k in same.items() if k == kept)
        head += "\n%s: the same placement as %s (dry run), so not run separately: %s's results are %s" % (
            ", ".join(twins), kept, kept, "theirs" if len(twins) > 1 else "its")
    text = head + "\n\nwall time of the step\n" + figure_table(config, results["time"], "s")
    if config.get("metric"):
        text += "\n\nthe program's figure (%s, %s is better)\n" % (config["metric"], config["metric_better"])
        text += figure_table(config, results["metric"], "")
    return text


def evaluation_command(config):
    """The slurm-pin evaluate command line that runs this evaluation again:
    the step's shape, srun's own arguments, the profile, the figure, the
    seed (the same run order), then the program."""
    q = shlex.quote
    words = ["slurm-pin", "evaluate", "--runs", str(config["runs"]),
             "--strategies", ",".join(config["strategies"] + sorted((config.get("same_placement") or {}).keys())),
             "--baseline", config["baseline"]]
    for flag, key in (("--nodes", "nodes"), ("--ntasks", "ntasks"), ("--cpus-per-task", "cpus_per_task"),
                      ("--profile", "profile"), ("--metric", "metric")):
        if config.get(key):
            words += [flag, str(config[key])]
    if config.get("metric") and config.get("metric_better") == "higher":
        words += ["--metric-better", "higher"]
    if config.get("noise"):
        words += ["--noise", str(config["noise"]), "--noise-kind", config["noise_kind"]]
    for a in config.get("srun_args") or []:
        words += ["--srun-arg=" + a]
    words += ["--seed", str(config["seed"]), "--"] + list(config["command"])
    env = ["%s=%s" % (k, v) for k, v in sorted(measured_environment(config).items())]
    return " ".join(q(w) for w in env + words)


NOISY_RV = 0.10  # a run-to-run spread (RV) above this: the machine's noise hides small differences


def summary_sentence(config, results, rec):
    """What was found, in one plain sentence, then a warning when the
    machine's noise is high."""
    key = rec["figure"]
    r = results.get(key, {})
    if "error" in r:
        return "Nothing could be decided: %s." % r["error"]
    base = config["baseline"]
    if rec["decided"] and rec["strategy"] != base:
        s = rec["strategy"]
        c = "median" if r[s]["median"]["verdict"] == "speedup" else "mean"
        gain = 100 * (1 - 1 / r[s][c]["speedup"])
        steadier = r[s]["summary"]["rv"] < r[base]["summary"]["rv"]
        text = "%s made the %s %s %.0f%% %s than %s%s." % (
            s, c, "run" if key == "time" else "figure", abs(gain), "better" if gain > 0 else "worse", base,
            ", and runs steadier" if steadier else "")
    elif rec["runs_needed"] is not None:
        text = "No strategy could be told from %s with %d runs: %s." % (base, config["runs"], rec["why"])
    else:
        text = "No measurable difference between the strategies and the baseline %s." % base
    rv = max(r[x]["summary"]["rv"] for x in config["strategies"])
    if rv > NOISY_RV:
        text += (" Warning: runs vary by up to %.0f%% (RV) on this machine: differences smaller than that need "
                 "many runs to show, and a quieter node (no other jobs) shows them sooner." % (100 * rv))
    return text


def recommendation_line(rec):
    """"recommended: S (why)", or, when the protocol could not decide,
    "no recommendation: why" (the rule then keeps the baseline)."""
    if rec["runs_needed"] is not None or rec["failed"]:
        return "no recommendation: " + rec["why"]
    if rec["strategy"] == rec.get("baseline"):
        return "no strategy beats the baseline %s: keep %s (%s)" % (rec["strategy"], rec["strategy"], rec["why"])
    return "recommended: %s (%s)" % (rec["strategy"], rec["why"])


# ---- the policy rule ---------------------------------------------------------

def lua_string(s):
    """A Lua 5.1 string literal for any text: backslash, quote and every
    control or non-ASCII byte escaped as \\ddd, so no name can end the
    string, the line or the file early."""
    out = []
    for b in s.encode("utf-8", "surrogateescape"):
        c = chr(b)
        if c in '\\"' or b < 32 or b >= 127:
            out.append("\\%03d" % b)
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def lua_comment(s):
    """Text for a -- comment line: control bytes (a CR or LF would end the
    comment and make the rest code) written as \\ddd."""
    return "".join(c if 32 <= ord(c) != 127 else "\\%03d" % ord(c) for c in s)


def measured_environment(config):
    """The thread variables the runs inherited (OMP_NUM_THREADS, ...); a
    journal written before evaluate kept them holds OMP_NUM_THREADS only."""
    env = config.get("environment")
    if env is None:
        env = {"OMP_NUM_THREADS": config["omp_num_threads"]} if config.get("omp_num_threads") else {}
    return dict(env)


# What a rule's action can carry, by the srun option that set it
# (lua/slurm_pin_policy.lua): anything else a rule cannot set.
RULE_OPTIONS = {"--pin-mem": "mem", "--pin-granularity": "granularity", "--pin-thread-binding": "thread_binding"}
# The policy's bounds on an action's env (slurm_pin_policy.lua MAX_ENV,
# MAX_ENV_VALUE counted encoded: a byte outside these counts 3).
RULE_MAX_ENV, RULE_MAX_ENV_VALUE = 8, 256
RULE_PLAIN = re.compile(r"[A-Za-z0-9._+/:,-]")


def pin_options(srun_args):
    """srun's --pin-* arguments as (option, value) pairs, --opt=v and --opt v
    alike; value None for a flag."""
    out, i = [], 0
    while i < len(srun_args):
        a = srun_args[i]
        if a.startswith("--pin-"):
            if "=" in a:
                out.append(tuple(a.split("=", 1)))
            elif a in RULE_OPTIONS and i + 1 < len(srun_args):
                out.append((a, srun_args[i + 1]))
                i += 1
            else:
                out.append((a, None))
        i += 1
    return out


def rule_env(env, notes):
    """The env the rule carries, in Lua; what it cannot carry goes in notes."""
    items, left = [], []
    for k, v in sorted(env.items()):
        encoded = sum(1 if RULE_PLAIN.fullmatch(c) else 3 for c in v)
        if len(items) < RULE_MAX_ENV and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", k) and \
                all(32 <= ord(c) <= 126 for c in v) and encoded <= RULE_MAX_ENV_VALUE:
            items.append("%s = %s" % (k, lua_string(v)))
        else:
            left.append("%s=%s" % (k, v))
    if left:
        notes.append(lua_comment("-- measured with %s, which a rule cannot carry: jobs must set it themselves"
                                 % " ".join(left)))
    return items


def whole(v):
    v = str(v or "")
    return v if re.fullmatch(r"[0-9]+", v) else ""


def rule(config, rec):
    """The policy rule that gives this application what was measured: the
    recommended strategy, with the srun options and the environment the
    runs had, matching the step shape they were measured on."""
    app = config["app"]
    best = rec["strategy"]
    profile = config.get("profile") or ""
    action = ["strategy = %s" % lua_string(best)]
    match = ["app = %s" % lua_string(app)]
    notes = []
    if profile and best not in ("none", "compact", "scatter", "random"):
        if "/" in profile:
            # A rule names store profiles only: the file must be imported.
            action.append("profile = \"%app\"")
            match.append("has_profile = true")
            notes.append(lua_comment("-- import the profile first: slurm-pin profiles import %s --app %s" % (profile, app)))
        else:
            action.append("profile = %s" % lua_string(profile))
    # The step's shape it was measured on: nodes and tasks when given, and
    # its thread count (OMP_NUM_THREADS, else -c), so evaluations of one
    # program at two shapes give two rules.
    env = measured_environment(config)
    nodes, tasks = whole(config.get("nodes")), whole(config.get("ntasks"))
    threads = whole(env.get("OMP_NUM_THREADS") or config.get("cpus_per_task"))
    for key, n in (("nodes", nodes), ("tasks", tasks), ("threads", threads)):
        if n:
            match.append("%s = { min = %s, max = %s }" % (key, n, n))
    cannot = []
    for option, value in pin_options(config.get("srun_args") or []):
        if option in RULE_OPTIONS and value:
            action.append("%s = %s" % (RULE_OPTIONS[option], lua_string(value)))
        else:
            cannot.append(option + ("=" + value if value else ""))
    if cannot:
        notes.append(lua_comment("-- measured with %s, which a rule cannot set: jobs must give it themselves"
                                 % " ".join(cannot)))
    env_items = rule_env(env, notes)
    if env_items:
        action.append("env = { %s }" % ", ".join(env_items))
    action.append("mode = \"default\"")
    shape = "".join("-%s%s" % (c, n) for c, n in (("N", nodes), ("n", tasks), ("t", threads)) if n)
    name = re.sub(r"[^A-Za-z0-9_.+-]", "-", "evaluated-" + app + shape)[:100]
    noise = noise_text(config)
    head = [lua_comment("-- slurm-pin evaluate: %s, %d runs per strategy%s, decided on %s" % (
        app, config["runs"], ", " + noise if noise else "",
        "the program's figure" if rec["figure"] == "metric" else "wall time")),
        lua_comment("-- " + recommendation_line(rec))] + notes
    if not rec["decided"]:
        # Nothing was decided: a rule naming the baseline would override a
        # partition's default for this application on no evidence.
        head.append(lua_comment("-- no rule: this application keeps what the policy gives it today"))
        return "\n".join(head + ["return {", "  rules = {", "  },", "}"]) + "\n"
    body = ["return {", "  rules = {",
            "    { name = %s, match = { %s }," % (lua_string(name), ", ".join(match)),
            "      action = { %s } }," % ", ".join(action),
            "  },", "}"]
    return "\n".join(head + body) + "\n"


# ---- the report ----------------------------------------------------------------

def short_decision(d, better):
    """Two words on the plot: the centre's speedup and the verdict."""
    worse = {"faster": "slower", "better": "worse"}[better]
    return {"speedup": "x%.2f %s" % (d["speedup"], better), "slowdown": "x%.2f %s" % (d["speedup"], worse),
            "not significant": "not significant", "need more runs": "need more runs"}[d["verdict"]]


def violin_panel(ax, config, values, result, ylabel, better):
    """One figure: a violin per strategy with its points, quartiles (box),
    median (white bar) and mean (diamond); n and the decisions under each."""
    names = config["strategies"]
    data = [values[s] for s in names]
    parts = ax.violinplot(data, showextrema=False)
    for body in parts["bodies"]:
        body.set_alpha(0.35)
    for i, d in enumerate(data, 1):
        ax.plot([i] * len(d), d, "k.", alpha=0.4, markersize=4)
        if "error" in result:
            continue
        t = result[names[i - 1]]["summary"]
        ax.vlines(i, t["q1"], t["q3"], color="k", linewidth=6)
        ax.hlines(t["median"], i - 0.08, i + 0.08, color="w", linewidth=2)
        ax.plot(i, t["mean"], "D", color="tab:red", markersize=5)
    labels = []
    for s in names:
        n = len(values[s])
        if s == config["baseline"]:
            labels.append("%s\nn=%d\nbaseline" % (s, n))
        elif "error" in result:
            labels.append("%s\nn=%d" % (s, n))
        else:
            labels.append("%s\nn=%d\nmean: %s\nmedian: %s" % (s, n, short_decision(result[s]["mean"], better),
                                                              short_decision(result[s]["median"], better)))
    ax.set_xticks(range(1, len(names) + 1))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel(ylabel)


def violin(config, values, results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    panels = [("time", "wall time of the step (s)", "faster")]
    if config.get("metric"):
        panels.append(("metric", "the program's figure (%s is better)" % config["metric_better"], "better"))
    fig, axes = plt.subplots(1, len(panels), figsize=(len(panels) * (1.7 * len(config["strategies"]) + 2), 5.5),
                             squeeze=False)
    for ax, (key, label, better) in zip(axes[0], panels):
        violin_panel(ax, config, values[key], results[key], label, better)
    noise = noise_text(config)
    fig.suptitle("%s: Speedup-Test against %s, alpha %s%s" % (config["app"], config["baseline"], config["alpha"],
                                                             ", " + noise if noise else ""))
    fig.legend(handles=[Line2D([], [], color="k", linewidth=6, label="quartiles"),
                        Line2D([], [], color="w", marker="_", markeredgecolor="k", linestyle="", label="median"),
                        Line2D([], [], color="tab:red", marker="D", linestyle="", label="mean")],
               loc="upper right", fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def store_name(app):
    """The application's name as a store name (letters, digits, . _ -)."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", app).lstrip(".") or "app"
    return name[:64]


def heatmap(config, path):
    """The profile's sharing matrix drawn by `slurm-pin profiles show`,
    titled by the application; a profile file goes through a scratch store
    under the application's name. None, or why it could not be drawn."""
    profile, cli = config.get("profile"), config["slurm_pin"]
    title = "%s: profile %s" % (config["app"], os.path.basename(profile))
    with tempfile.TemporaryDirectory() as scratch:
        # The store the evaluation used (SLURM_PIN_STORE then), else the
        # site's, which `slurm-pin profiles` finds as srun's plugin does.
        name, store = profile, config.get("store") or os.environ.get("SLURM_PIN_STORE")
        if "/" in profile:
            name, store = store_name(config["app"]), scratch
            r = subprocess.run([cli, "profiles", "import", profile, "--app", name, "--store", store],
                               capture_output=True, text=True)
            if r.returncode != 0:
                return "heatmap unavailable: " + r.stderr.strip()
        where = ["--store", store] if store else []
        r = subprocess.run([cli, "profiles", "show", name, "--png", path, "--title", title] + where,
                           capture_output=True, text=True)
        return None if r.returncode == 0 else "heatmap unavailable: " + r.stderr.strip()


def report(config, values, results, text, rec, rule_text, directory):
    os.makedirs(directory, exist_ok=True)
    violin(config, values, results, os.path.join(directory, "violin.png"))
    noise = noise_text(config)
    md = ["# slurm-pin evaluate: %s" % config["app"], "",
          summary_sentence(config, results, rec), "",
          "Command (runs this evaluation again, in the same order): `%s`" % evaluation_command(config), "",
          "%d runs per strategy, interleaved in a random order (seed %s); baseline %s; alpha %s%s." % (
              config["runs"], config["seed"], config["baseline"], config["alpha"],
              "; %s beside each task" % noise if noise else ""), "",
          "```", text, "```", "",
          "RV is the relative variability (max - min) / max. The decisions follow the Speedup-Test protocol",
          "(seed 001, section 3.1.3.2; docs/evaluate.md): the mean by Student's t-test above 30 runs, below",
          "by Shapiro-Wilk, Fisher's F and Student's or Welch's t-test; the median by Kolmogorov-Smirnov,",
          "then Wilcoxon-Mann-Whitney above 30 runs, both exact with ties. \"need more runs\" means the protocol",
          "cannot decide. Every verdict (tables, plot, recommendation) is after Holm's correction over the",
          "comparisons with the baseline; one it does not keep is \"not significant\" and says so.", "",
          "![wall time per strategy](violin.png)", ""]
    if config.get("profile"):
        problem = heatmap(config, os.path.join(directory, "heatmap.png"))
        md += ["## Profile %s" % config["profile"], "", problem if problem else "![sharing heatmap](heatmap.png)", ""]
    md += ["## Recommendation", "", recommendation_line(rec), "",
           "```lua", rule_text.rstrip(), "```", ""]
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write("\n".join(md))


# ---- several programs or inputs -----------------------------------------------------

def read_evaluation(path):
    """The configuration and results of one `--json` file, or ValueError."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not {"config", "results"} <= set(data):
        raise ValueError("%s is not a slurm-pin evaluate --json file" % path)
    return data["config"], data["results"]


def combine(paths, alpha=None):
    """The proportion of evaluations (programs or inputs) each strategy
    accelerates, with its Clopper-Pearson interval at confidence 1 - alpha
    (seed 001, 3.1.3.2: "a confidence interval ... for this proportion of
    accelerated benchmarks"). An evaluation counts as accelerated when the
    verdict on its deciding figure (the program's with --metric, else wall
    time) is a speedup after Holm's correction; one whose figure could not
    be analysed counts as not accelerated. Text, and the numbers as a dict."""
    evaluations = []
    for path in paths:
        try:
            evaluations.append((path,) + read_evaluation(path))
        except (OSError, ValueError) as e:
            raise AnalysisError(str(e))
    baselines = {c["baseline"] for _, c, _ in evaluations}
    if len(baselines) != 1:
        raise AnalysisError("the evaluations compare with different baselines (%s): combine those of one"
                            % ", ".join(sorted(baselines)))
    alphas = {float(c["alpha"]) for _, c, _ in evaluations}
    if alpha is None:
        if len(alphas) != 1:
            raise AnalysisError("the evaluations were made at different risks (%s): give --alpha"
                                % ", ".join("%g" % a for a in sorted(alphas)))
        alpha = alphas.pop()
    base = baselines.pop()
    strategies = []
    for _, c, _ in evaluations:
        strategies += [s for s in c["strategies"] if s != base and s not in strategies]
    table = {}
    for s in strategies:
        row = {}
        for centre in ("mean", "median"):
            seen = accelerated = 0
            for _, c, r in evaluations:
                if s not in c["strategies"]:
                    continue
                seen += 1
                figure = r["metric" if c.get("metric") else "time"]
                accelerated += "error" not in figure and figure[s][centre]["verdict"] == "speedup"
            low, high = exact_tests.proportion_ci(accelerated, seen, alpha)
            row[centre] = {"evaluations": seen, "accelerated": accelerated, "proportion": accelerated / seen,
                           "interval": [low, high]}
        table[s] = row
    level = "%g%%" % (100 * (1 - alpha))
    rows = [["strategy", "evaluations", "mean accelerated", level + " interval", "median accelerated",
             level + " interval"]]
    for s, row in table.items():
        cells = [s, str(row["mean"]["evaluations"])]
        for centre in ("mean", "median"):
            e = row[centre]
            cells += ["%d (%.0f%%)" % (e["accelerated"], 100 * e["proportion"]),
                      "%.0f%% - %.0f%%" % (100 * e["interval"][0], 100 * e["interval"][1])]
        rows.append(cells)
    text = ("Proportion of %d evaluations (programs or inputs) each strategy accelerates against %s: a speedup "
            "the protocol declares after Holm's correction, on each evaluation's deciding figure; "
            "Clopper-Pearson interval at confidence %s\n\n" % (len(evaluations), base, level)) + columns(rows, right=(1,))
    return text, {"baseline": base, "alpha": alpha, "evaluations": [p for p, _, _ in evaluations],
                  "strategies": table}


# ---- main ------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--journal")
    ap.add_argument("--combine", action="store_true", help="combine the evaluations given as JSON files")
    ap.add_argument("--alpha", type=float)
    ap.add_argument("evaluations", nargs="*", metavar="JSON")
    ap.add_argument("--config-shell", action="store_true", help="print the configuration for --resume")
    ap.add_argument("--json")
    ap.add_argument("--report")
    ap.add_argument("--emit-rule", action="store_true")
    a = ap.parse_args()
    if a.combine:
        if not a.evaluations:
            die("--combine needs the --json files of one or more evaluations")
        if a.alpha is not None and not 0 < a.alpha < 1:
            die("--alpha takes a risk between 0 and 1, not %g" % a.alpha)
        try:
            text, numbers = combine(a.evaluations, a.alpha)
        except AnalysisError as e:
            die(str(e))
        except (KeyError, TypeError, AttributeError) as e:
            die("an evaluation is not a slurm-pin evaluate --json file of this version (%s missing or wrong)" % e)
        print(text)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(numbers, f, indent=1)
        return
    if not a.journal:
        die("give --journal JOURNAL or --combine JSON...")
    try:
        config, runs = read_journal(a.journal)
        if a.config_shell:
            sys.stdout.write(config_shell(config))
            return
    except (OSError, JournalError, KeyError, TypeError) as e:
        die("%s: %s" % (a.journal, e) if isinstance(e, (KeyError, TypeError)) else str(e))
    results, values = analyse(config, runs)
    text = tables(config, results)
    rec = recommend(config, results, values)
    rule_text = rule(config, rec)
    if a.emit_rule:
        sys.stdout.write(rule_text)
    else:
        print(text)
        print()
        print(recommendation_line(rec))
        print(summary_sentence(config, results, rec))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"config": config, "runs": runs, "results": results, "recommendation": rec}, f, indent=1)
    if a.report:
        report(config, values, results, text, rec, rule_text, a.report)
    errors = [results[k]["error"] for k in results if "error" in results[k]]
    if errors:
        die("%s (every run is kept in %s)" % ("; ".join(errors), a.journal))


if __name__ == "__main__":
    main()
