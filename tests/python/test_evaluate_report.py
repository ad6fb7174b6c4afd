# SPDX-License-Identifier: GPL-2.0-or-later
"""slurm-pin evaluate's analysis (evaluate/evaluate_report.py): the journal,
the configuration handed back to --resume, the recommendation (on the
program's figure, Holm's correction, "need more runs" advice) and one-line
errors. End to end through Slurm: tests/bats/evaluate.bats."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "evaluate"))
import evaluate_report as er  # noqa: E402

REPORT = os.path.join(HERE, "..", "..", "evaluate", "evaluate_report.py")


def config(**kw):
    c = {"app": "demo", "command": ["./demo", "in"], "strategies": ["none", "compact", "scatter"],
         "baseline": "none", "runs": 10, "seed": 5, "alpha": 0.05, "noise": 0, "noise_kind": "cpu",
         "profile": "", "nodes": "", "ntasks": "", "cpus_per_task": "2", "srun_args": [], "metric": "",
         "metric_better": "lower", "welch_large": 0, "wmw_any_size": 0, "store": "", "slurm_pin": "slurm-pin"}
    c.update(kw)
    return c


def runs_of(figures, times=None, seed=0):
    """Journal runs: figures {strategy: [metric per round]}, wall times
    {strategy: [seconds]} (default: all alike, 3 s +- 10%)."""
    rng = np.random.default_rng(seed)
    out = []
    for s, values in figures.items():
        for r, v in enumerate(values, 1):
            t = times[s][r - 1] if times else float(rng.normal(3.0, 0.3))
            out.append({"strategy": s, "round": r, "seconds": t, "exit": 0, "metric": v})
    return out


def write_journal(path, cfg, runs, tail=""):
    with open(path, "w") as f:
        f.write("#config\t" + json.dumps(cfg) + "\n")
        for r in runs:
            f.write("run\t%s\t%d\t%.6f\t%d\t%s\n" % (r["strategy"], r["round"], r["seconds"], r["exit"],
                                                   "" if r["metric"] is None else "%.6f" % r["metric"]))
        f.write(tail)


def normal(mean, sd, n, seed):
    return [float(v) for v in np.random.default_rng(seed).normal(mean, sd, n)]


def gaussian(mean, sd, n, seed):
    """n runs shaped exactly like a Gaussian (its quantiles), in a random
    order: Shapiro-Wilk accepts them whatever the seed."""
    q = stats.norm.ppf((np.arange(n) + 0.5) / n) * sd + mean
    return [float(v) for v in np.random.default_rng(seed).permutation(q)]


class Journal(unittest.TestCase):
    def test_round_trip_and_a_run_cut_off(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "j")
            runs = runs_of({"none": [1.0, 2.0], "compact": [1.5, None]})
            write_journal(path, config(), runs, tail="run\tnone\t3\t2.5")  # no newline: cut off
            cfg, got = er.read_journal(path)
            self.assertEqual(cfg["app"], "demo")
            self.assertEqual([(r["strategy"], r["round"], r["metric"]) for r in got],
                             [("none", 1, 1.0), ("none", 2, 2.0), ("compact", 1, 1.5), ("compact", 2, None)])

    def test_not_a_journal(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "j")
            with open(path, "w") as f:
                f.write('{"runs": []}\n')
            with self.assertRaisesRegex(er.JournalError, "not a slurm-pin evaluate journal"):
                er.read_journal(path)
            with open(path, "w") as f:
                f.write("#config\t{}\nrun\tnone\tx\t1.0\t0\t\n")
            with self.assertRaisesRegex(er.JournalError, ":2: "):
                er.read_journal(path)

    def test_config_shell_quotes_every_value(self):
        hostile = ["./a b", "$(touch /tmp/owned)", "it's", "line\nbreak", "`id`", ""]
        cfg = config(command=hostile, srun_args=["--partition=x y", "--comment=$HOME"], app="a'b",
                     metric="time: ([0-9.]+) \\$")
        script = er.config_shell(cfg) + 'printf "%s\\0" "${command[@]}"; printf "%s\\0" "${srun_args[@]}" "$app" "$metric" "$cpus"'
        out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout.decode()
        self.assertEqual(out.split("\0")[:-1],
                         hostile + ["--partition=x y", "--comment=$HOME", "a'b", "time: ([0-9.]+) \\$", "2"])


class Recommendation(unittest.TestCase):
    def decide(self, cfg, runs):
        results, values = er.analyse(cfg, runs)
        return results, er.recommend(cfg, results, values)

    def test_the_programs_figure_decides_under_metric(self):
        # Wall times alike (srun's overhead); the program's own time clearly lower under compact.
        figures = {"none": gaussian(2.0, 0.05, 10, 1), "compact": gaussian(1.5, 0.05, 10, 2),
                   "scatter": gaussian(2.0, 0.05, 10, 3)}
        cfg = config(metric="time: ([0-9.]+)")
        results, rec = self.decide(cfg, runs_of(figures))
        self.assertEqual(results["time"]["compact"]["mean"]["verdict"], "not significant")
        self.assertEqual((rec["figure"], rec["strategy"], rec["decided"]), ("metric", "compact", True))
        self.assertIn("speedup of the mean", rec["why"])
        self.assertIn("Holm over 4 comparisons", rec["why"])
        # Without --metric the same runs are decided on wall time: nothing is faster.
        _, rec = self.decide(config(), runs_of(figures))
        self.assertEqual((rec["figure"], rec["strategy"], rec["decided"]), ("time", "none", False))

    def test_finalists_no_different_from_each_other_are_named_together(self):
        # compact and scatter both clearly faster than none, and alike: the
        # recommendation says the evidence does not choose between them, and
        # Holm counts the finalists' two comparisons too.
        figures = {"none": gaussian(2.0, 0.05, 10, 1), "compact": gaussian(1.5, 0.05, 10, 2),
                   "scatter": gaussian(1.5, 0.05, 10, 3)}
        results, rec = self.decide(config(metric="time: ([0-9.]+)"), runs_of(figures))
        pairs = results["metric"]["finalists"]
        self.assertEqual([(p["first"], p["second"]) for p in pairs], [("compact", "scatter")])
        self.assertEqual(pairs[0]["mean"]["verdict"], "not significant")
        self.assertTrue(rec["decided"])
        self.assertIn(rec["strategy"], ("compact", "scatter"))
        other = "scatter" if rec["strategy"] == "compact" else "compact"
        self.assertIn("%s is not measurably different from %s" % (other, rec["strategy"]), rec["why"])
        self.assertIn("Holm over 6 comparisons", rec["why"])
        self.assertEqual(rec["same_as_recommended"], [other])
        # The table shows the pair.
        self.assertIn("finalists against each other", er.figure_table(config(metric="x"), results["metric"], ""))
        # A finalist clearly faster than the other: both named in the pair, the faster recommended alone.
        figures["scatter"] = gaussian(1.2, 0.05, 10, 3)
        results, rec = self.decide(config(metric="time: ([0-9.]+)"), runs_of(figures))
        self.assertEqual(results["metric"]["finalists"][0]["mean"]["verdict"], "speedup")  # scatter faster than compact
        self.assertEqual(rec["strategy"], "scatter")
        self.assertNotIn("not measurably different", rec["why"])

    def test_one_plain_sentence_says_what_was_found_and_warns_of_noise(self):
        figures = {"none": gaussian(2.0, 0.02, 10, 1), "compact": gaussian(1.84, 0.01, 10, 2),
                   "scatter": gaussian(2.0, 0.02, 10, 3)}
        cfg = config(metric="time: ([0-9.]+)")
        results, rec = self.decide(cfg, runs_of(figures))
        text = er.summary_sentence(cfg, results, rec)
        self.assertRegex(text, r"^compact made the (mean|median) figure 8% better than none, and runs steadier\.$")
        # Strategies alike: said plainly, and the baseline is "kept", not "recommended".
        alike = {s: gaussian(2.0, 0.02, 10, i) for i, s in enumerate(("none", "compact", "scatter"))}
        cfg = config(metric="time: ([0-9.]+)", runs=40)
        results, rec = self.decide(cfg, runs_of({s: gaussian(2.0, 0.02, 40, i) for i, s in enumerate(alike)}))
        self.assertIsNone(rec["runs_needed"])
        self.assertTrue(er.recommendation_line(rec).startswith("no strategy beats the baseline none: keep none"))
        self.assertEqual(er.summary_sentence(cfg, results, rec),
                         "No measurable difference between the strategies and the baseline none.")
        # A noisy machine: the warning.
        noisy = {s: [float(v) for v in 3 * np.random.default_rng(i).lognormal(0, 0.3, 10)]
                 for i, s in enumerate(("none", "compact", "scatter"))}
        results, rec = self.decide(config(), runs_of(noisy, noisy))
        self.assertIn("Warning: runs vary by up to", er.summary_sentence(config(), results, rec))

    def test_rules_match_the_shape_they_were_measured_at(self):
        figures = {"none": gaussian(2.0, 0.05, 10, 1), "compact": gaussian(1.5, 0.05, 10, 2)}
        rules = []
        for threads in ("2", "4"):
            cfg = config(strategies=["none", "compact"], metric="t", ntasks="2",
                         environment={"OMP_NUM_THREADS": threads})
            results, rec = self.decide(cfg, runs_of(figures))
            rules.append(er.rule(cfg, rec))
        self.assertIn('name = "evaluated-demo-n2-t2", match = { app = "demo", tasks = { min = 2, max = 2 }, '
                      'threads = { min = 2, max = 2 } }', rules[0])
        self.assertIn('name = "evaluated-demo-n2-t4", match = { app = "demo", tasks = { min = 2, max = 2 }, '
                      'threads = { min = 4, max = 4 } }', rules[1])

    def test_the_rule_carries_the_options_and_environment_it_was_measured_with(self):
        figures = {"none": gaussian(2.0, 0.05, 10, 1), "compact": gaussian(1.5, 0.05, 10, 2)}
        cfg = config(strategies=["none", "compact"], metric="t",
                     srun_args=["--pin-thread-binding=preload", "--pin-mem", "local", "--pin-smt=1", "--mpi=pmi2"],
                     environment={"OMP_NUM_THREADS": "4", "OMP_WAIT_POLICY": "passive", "KMP_BLOCKTIME": "a\nb"})
        results, rec = self.decide(cfg, runs_of(figures))
        rule = er.rule(cfg, rec)
        self.assertIn('action = { strategy = "compact", thread_binding = "preload", mem = "local", '
                      'env = { OMP_NUM_THREADS = "4", OMP_WAIT_POLICY = "passive" }, mode = "default" }', rule)
        # What a rule cannot hold is named, never dropped silently.
        self.assertIn("-- measured with --pin-smt=1, which a rule cannot set", rule)
        self.assertIn("-- measured with KMP_BLOCKTIME=a\\010b, which a rule cannot carry", rule)
        self.assertNotIn("pmi2", rule)  # srun's own options are the job's, not the placement's
        # An old journal (OMP_NUM_THREADS only) gives the same env.
        cfg = config(strategies=["none", "compact"], metric="t", omp_num_threads="4")
        self.assertIn('env = { OMP_NUM_THREADS = "4" }', er.rule(cfg, self.decide(cfg, runs_of(figures))[1]))
        self.assertTrue(er.evaluation_command(cfg).startswith("OMP_NUM_THREADS=4 slurm-pin evaluate "))

    def test_the_reports_command_line_runs_the_evaluation_again(self):
        cfg = config(nodes="2", ntasks="8", srun_args=["--mpi=pmi2"], profile="app", metric="t: ([0-9.]+)",
                     same_placement={"scatter": "compact"}, strategies=["none", "compact"])
        cmd = er.evaluation_command(cfg)
        self.assertEqual(cmd, "slurm-pin evaluate --runs 10 --strategies none,compact,scatter --baseline none "
                              "--nodes 2 --ntasks 8 --cpus-per-task 2 --profile app --metric 't: ([0-9.]+)' "
                              "--srun-arg=--mpi=pmi2 --seed 5 -- ./demo in")

    def test_a_rate_swaps_the_samples(self):
        figures = {"none": gaussian(100, 2, 10, 4), "compact": gaussian(130, 2, 10, 5),
                   "scatter": gaussian(100, 2, 10, 6)}
        results, rec = self.decide(config(metric="rate ([0-9.]+)", metric_better="higher"), runs_of(figures))
        self.assertEqual(rec["strategy"], "compact")
        self.assertAlmostEqual(results["metric"]["compact"]["mean"]["speedup"], np.mean(figures["compact"]) /
                               np.mean(figures["none"]))

    def test_holm_keeps_a_lone_borderline_speedup_out(self):
        # Student p between alpha / 4 and alpha: significant alone, not among 4 comparisons.
        for seed in range(500):
            base, fast = normal(10, 1, 10, seed), normal(9.2, 1, 10, seed + 1000)
            results, _ = self.decide(config(strategies=["none", "compact"]),
                                     runs_of({"none": base, "compact": fast}, {"none": base, "compact": fast}))
            m = results["time"]["compact"]["mean"]
            if m["verdict"] == "speedup" and 0.05 / 4 < m["p_value"] < 0.05 / 2:
                break
        else:
            self.fail("no borderline sample")
        times = {"none": base, "compact": fast, "scatter": list(reversed(base))}
        results, rec = self.decide(config(), runs_of(times, times))
        # One verdict everywhere: a speedup alone, not kept by Holm over 4 comparisons.
        m = results["time"]["compact"]["mean"]
        self.assertEqual((m["verdict_uncorrected"], m["verdict"], m["holm"]), ("speedup", "not significant",
                                                                              {"comparisons": 4, "kept": False}))
        self.assertIn("not significant", er.decision_text(m))
        self.assertIn("a speedup alone, not kept by Holm over 4", er.test_text(m))
        self.assertEqual(er.short_decision(m, "faster"), "not significant")  # the plot's label
        self.assertFalse(rec["decided"])
        self.assertGreater(rec["runs_needed"], 10)
        self.assertIn("the protocol cannot decide compact", rec["why"])
        self.assertTrue(er.recommendation_line(rec).startswith("no recommendation: "))
        # Compared alone (2 comparisons: alpha / 2 for the smaller p), it is recommended.
        two = {"none": base, "compact": fast}
        _, rec = self.decide(config(strategies=["none", "compact"]), runs_of(two, two))
        self.assertEqual(rec["strategy"], "compact")

    def test_high_variability_recommends_nothing_and_says_how_many_runs(self):
        rng = np.random.default_rng(7)
        noisy = {s: [float(v) for v in 3 * rng.lognormal(0, 0.8, 10)] for s in ("none", "compact", "scatter")}
        results, rec = self.decide(config(), runs_of(noisy, noisy))
        # RV 85-89% (as NPB CG on a shared machine): Shapiro-Wilk refuses the means.
        self.assertGreater(results["time"]["none"]["summary"]["rv"], 0.8)
        self.assertFalse(rec["decided"])
        self.assertEqual(rec["strategy"], "none")
        self.assertGreaterEqual(rec["runs_needed"], 31)
        self.assertEqual(rec["runs_needed"], min(rec["runs_needed_by"].values()))
        self.assertRegex(rec["why"], r"RV up to \d+%%.*about %d runs per strategy" % rec["runs_needed"])
        rule = er.rule(config(), rec)
        self.assertIn("-- no recommendation: the protocol cannot decide", rule)
        # No rule at all: one naming the baseline would override a partition's default on no evidence.
        self.assertNotIn("strategy", rule.replace("per strategy", ""))
        self.assertNotIn("action", rule)

    def test_a_zero_figure_is_one_line_and_nothing_is_decided(self):
        figures = {"none": [0.0] * 10, "compact": [0.0] * 9 + [0.01], "scatter": [0.0] * 10}
        results, rec = self.decide(config(metric="Time in seconds = +([0-9.]+)"), runs_of(figures))
        self.assertIn("none is 0 in 10 of 10 runs", results["metric"]["error"])
        self.assertNotIn("error", results["time"])  # wall time still analysed
        self.assertTrue(rec["failed"])
        self.assertTrue(er.recommendation_line(rec).startswith("no recommendation: nothing can be decided"))


class Combined(unittest.TestCase):
    """Several programs or inputs: the proportion each strategy accelerates."""

    def evaluation(self, d, name, faster):
        figures = {"none": gaussian(2.0, 0.05, 10, 1), "compact": gaussian(1.5 if faster else 2.0, 0.05, 10, 2),
                   "scatter": gaussian(2.0, 0.05, 10, 3)}
        cfg = config(app=name, metric="time: ([0-9.]+)")
        results, values = er.analyse(cfg, runs_of(figures))
        path = os.path.join(d, name + ".json")
        with open(path, "w") as f:
            json.dump({"config": cfg, "runs": [], "results": results,
                       "recommendation": er.recommend(cfg, results, values)}, f)
        return path

    def test_proportion_with_its_clopper_pearson_interval(self):
        with tempfile.TemporaryDirectory() as d:
            paths = [self.evaluation(d, "app%d" % i, i < 7) for i in range(10)]
            text, numbers = er.combine(paths)
            mean = numbers["strategies"]["compact"]["mean"]
            self.assertEqual((mean["accelerated"], mean["evaluations"]), (7, 10))
            self.assertAlmostEqual(mean["interval"][0], stats.beta.ppf(0.025, 7, 4))
            self.assertAlmostEqual(mean["interval"][1], stats.beta.ppf(0.975, 8, 3))
            self.assertEqual(numbers["strategies"]["scatter"]["mean"]["accelerated"], 0)
            self.assertIn("compact", text)
            self.assertIn("7 (70%)", text)
            self.assertIn("35% - 93%", text)
            out = os.path.join(d, "combined.json")
            r = subprocess.run(["/usr/bin/python3", REPORT, "--combine", "--json", out] + paths,
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("Clopper-Pearson", r.stdout)
            with open(out) as f:
                self.assertEqual(json.load(f)["strategies"]["compact"]["mean"]["accelerated"], 7)

    def test_not_an_evaluation_is_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write("[1, 2]")
            r = subprocess.run(["/usr/bin/python3", REPORT, "--combine", bad], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stderr.count("\n")), (1, 1), r.stderr)
            self.assertIn("not a slurm-pin evaluate --json file", r.stderr)


class CommandLine(unittest.TestCase):
    def test_zero_figure_one_line_exit_1_json_kept(self):
        with tempfile.TemporaryDirectory() as d:
            path, out = os.path.join(d, "j"), os.path.join(d, "e.json")
            figures = {"none": [0.0] * 3, "compact": [0.0] * 3, "scatter": [0.0] * 3}
            write_journal(path, config(runs=3, metric="Time in seconds = +([0-9.]+)"), runs_of(figures))
            r = subprocess.run(["/usr/bin/python3", REPORT, "--journal", path, "--json", out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertRegex(r.stderr, r"^slurm-pin: error: the program's figure: none is 0 in 3 of 3 runs.*kept in")
            self.assertNotIn("Traceback", r.stderr)
            with open(out) as f:
                self.assertEqual(len(json.load(f)["runs"]), 9)
            self.assertIn("wall time of the step", r.stdout)

    def test_not_a_journal_is_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "j")
            with open(path, "w") as f:
                f.write("hello\n")
            for extra in ([], ["--config-shell"]):
                r = subprocess.run(["/usr/bin/python3", REPORT, "--journal", path] + extra,
                                   capture_output=True, text=True)
                self.assertEqual((r.returncode, r.stderr.count("\n")), (1, 1), r.stderr)

    def test_tables_fit_their_widest_cell(self):
        rows = [["strategy", "runs"], ["a-very-long-strategy-name", "10"], ["x", "7"]]
        lines = er.columns(rows, right=(1,)).split("\n")
        self.assertEqual(len({line.index(line.split()[-1]) + len(line.split()[-1]) for line in lines}), 1)


if __name__ == "__main__":
    unittest.main()
