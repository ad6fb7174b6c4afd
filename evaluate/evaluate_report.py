# SPDX-License-Identifier: GPL-2.0-or-later
"""slurm-pin evaluate's analysis: from the runs slurm-pin-evaluate recorded,
the statistics of every strategy against the baseline (speedup_test.py), as
a text table, a JSON file with every raw time, a Markdown report with
violin plots, and a policy rule for the best strategy."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import speedup_test  # noqa: E402


def die(message):
    sys.stderr.write("slurm-pin: error: %s\n" % message)
    sys.exit(1)


def read_runs(path):
    runs = []
    with open(path) as f:
        for line in f:
            strategy, rnd, seconds, status, metric = line.rstrip("\n").split("\t")
            runs.append({"strategy": strategy, "round": int(rnd), "seconds": float(seconds),
                         "exit": int(status), "metric": float(metric) if metric else None})
    return runs


def analyse(config, runs, alpha):
    strategies, baseline = config["strategies"], config["baseline"]
    values = {}
    for s in strategies:
        times = [r["seconds"] for r in runs if r["strategy"] == s]
        metrics = [r["metric"] for r in runs if r["strategy"] == s and r["metric"] is not None]
        values[s] = (times, metrics)
    out = {}
    for s in strategies:
        times, metrics = values[s]
        entry = {"time": vars(speedup_test.summarize(times))}
        if s != baseline:
            base = values[baseline][0]
            entry["mean"] = speedup_test.as_dict(speedup_test.mean_decision(base, times, alpha))
            entry["median"] = speedup_test.as_dict(speedup_test.median_decision(base, times, alpha))
        if config.get("metric"):
            if len(metrics) != len(times):
                die("--metric %r matched %d of %d runs of %s: fix the expression (its first group must "
                    "capture a number the program prints)" % (config["metric"], len(metrics), len(times), s))
            entry["metric"] = vars(speedup_test.summarize(metrics))
            if s != baseline:
                base = values[baseline][1]
                # Lower is better, as times; a rate (higher is better) swaps the samples.
                pair = (base, metrics) if config.get("metric_better") != "higher" else (metrics, base)
                entry["metric_mean"] = speedup_test.as_dict(speedup_test.mean_decision(*pair, alpha))
                entry["metric_median"] = speedup_test.as_dict(speedup_test.median_decision(*pair, alpha))
        out[s] = entry
    return out


def fmt_p(d):
    return "-" if d["p_value"] is None else "%.3g" % d["p_value"]


def table(config, results, key="time", mean="mean", median="median", unit="s"):
    """One line per strategy: the summary of `key` and the decisions."""
    base = config["baseline"]
    lines = ["%-12s %5s %10s %10s %7s  %-28s %-28s" % ("strategy", "runs", "mean " + unit, "median " + unit, "RV",
                                                       "speedup of mean (p)", "speedup of median (p)")]
    for s in config["strategies"]:
        r = results[s]
        t = r[key]
        if s == base:
            m = md = "baseline"
        else:
            m = "%.3f %s (%s)" % (r[mean]["speedup"], r[mean]["verdict"], fmt_p(r[mean]))
            md = "%.3f %s (%s)" % (r[median]["speedup"], r[median]["verdict"], fmt_p(r[median]))
        lines.append("%-12s %5d %10.4f %10.4f %6.1f%%  %-28s %-28s" % (s, t["runs"], t["mean"], t["median"],
                                                                      100 * t["rv"], m, md))
    return "\n".join(lines)


def tables(config, results):
    """Wall time, then the program's own figure when --metric is given."""
    text = "wall time of the step\n" + table(config, results)
    if config.get("metric"):
        text += "\n\nthe program's figure (%s, %s is better)\n" % (config["metric"], config["metric_better"])
        text += table(config, results, "metric", "metric_mean", "metric_median", "")
    return text


def recommend(config, results):
    """The strategy with the largest significant speedup of the median (the
    protocol's distribution-free decision), else the baseline."""
    best, why = config["baseline"], "no strategy is significantly faster than %s" % config["baseline"]
    top = 1.0
    for s in config["strategies"]:
        d = results[s].get("median")
        if d and d["verdict"] == "speedup" and d["speedup"] > top:
            best, top = s, d["speedup"]
            why = "speedup of the median %.3f over %s (p = %s, Wilcoxon-Mann-Whitney)" % (
                d["speedup"], config["baseline"], fmt_p(d))
    return best, why


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


def rule(config, best, why):
    app = config["app"]
    profile = config.get("profile") or ""
    action = "strategy = %s, mode = \"default\"" % lua_string(best)
    match = "app = %s" % lua_string(app)
    notes = []
    if profile and best not in ("none", "compact", "scatter", "random"):
        if "/" in profile:
            # A rule names store profiles only: the file must be imported.
            action += ", profile = \"%app\""
            match += ", has_profile = true"
            notes.append(lua_comment("-- import the profile first: slurm-pin profiles import %s --app %s" % (profile, app)))
        else:
            action += ", profile = %s" % lua_string(profile)
    name = re.sub(r"[^A-Za-z0-9_.+-]", "-", "evaluated-" + app)
    head = [lua_comment("-- slurm-pin evaluate: %s, %d runs per strategy%s" % (
        app, config["runs"], ", %d noise processes" % config["noise"] if config["noise"] else "")),
        lua_comment("-- %s" % why)] + notes
    body = ["return {", "  rules = {",
            "    { name = %s, match = { %s }, action = { %s } }," % (lua_string(name), match, action),
            "  },", "}"]
    return "\n".join(head + body) + "\n"


def violin(config, runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = config["strategies"]
    data = [[r["seconds"] for r in runs if r["strategy"] == s] for s in names]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 4.5))
    ax.violinplot(data, showmedians=True)
    for i, d in enumerate(data, 1):
        ax.plot([i] * len(d), d, "k.", alpha=0.5)
    ax.set_xticks(range(1, len(names) + 1))
    ax.set_xticklabels(names)
    ax.set_ylabel("wall time of the step (s)")
    ax.set_title("%s: %d runs per strategy%s" % (config["app"], config["runs"],
                 ", %d %s noise processes" % (config["noise"], config["noise_kind"]) if config["noise"] else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def heatmap(config, path):
    """The profile's sharing matrix, drawn by `slurm-pin profiles show`; a
    profile file goes through a scratch store first."""
    profile, cli = config.get("profile"), config["slurm_pin"]
    if not profile:
        return None
    with tempfile.TemporaryDirectory() as store:
        name = profile
        if "/" in profile:
            name = "evaluated"
            r = subprocess.run([cli, "profiles", "import", profile, "--app", name, "--store", store],
                               capture_output=True, text=True)
            if r.returncode != 0:
                return "heatmap unavailable: " + r.stderr.strip()
        else:
            store = config.get("store") or os.environ.get("SLURM_PIN_STORE", "/var/lib/slurm-pin/profiles")
        r = subprocess.run([cli, "profiles", "show", name, "--store", store, "--png", path],
                           capture_output=True, text=True)
        return None if r.returncode == 0 else "heatmap unavailable: " + r.stderr.strip()


def report(config, runs, results, table_text, best, why, rule_text, directory):
    os.makedirs(directory, exist_ok=True)
    violin(config, runs, os.path.join(directory, "violin.png"))
    problem = heatmap(config, os.path.join(directory, "heatmap.png"))
    md = ["# slurm-pin evaluate: %s" % config["app"], "",
          "Command: `%s`" % " ".join(config["command"]), "",
          "%d runs per strategy, interleaved in a random order (seed %s); baseline %s; alpha %s%s." % (
              config["runs"], config["seed"], config["baseline"], config["alpha"],
              "; %d %s-bound noise processes beside each task" % (config["noise"], config["noise_kind"])
              if config["noise"] else ""), "",
          "```", table_text, "```", "",
          "RV is the relative variability (max - min) / max. Speedups follow the Speedup-Test protocol:",
          "the mean by Student's or Welch's t test (Shapiro-Wilk normality first below 30 runs),",
          "the median by Wilcoxon-Mann-Whitney; \"need more runs\" means the protocol cannot decide.", "",
          "![wall time per strategy](violin.png)", ""]
    if config.get("profile"):
        md += ["## Profile %s" % config["profile"], "",
               problem if problem else "![sharing heatmap](heatmap.png)", ""]
    md += ["## Recommendation", "", "%s: %s" % (best, why), "", "```lua", rule_text.rstrip(), "```", ""]
    with open(os.path.join(directory, "report.md"), "w") as f:
        f.write("\n".join(md))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--json")
    ap.add_argument("--report")
    ap.add_argument("--emit-rule", action="store_true")
    a = ap.parse_args()
    with open(a.config) as f:
        config = json.load(f)
    runs = read_runs(a.runs)
    results = analyse(config, runs, config["alpha"])
    text = tables(config, results)
    best, why = recommend(config, results)
    rule_text = rule(config, best, why)
    if a.emit_rule:
        sys.stdout.write(rule_text)
    else:
        print(text)
        print("recommended: %s (%s)" % (best, why))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"config": config, "runs": runs, "results": results,
                       "recommendation": {"strategy": best, "why": why}}, f, indent=1)
    if a.report:
        report(config, runs, results, text, best, why, rule_text, a.report)


if __name__ == "__main__":
    main()
