# SPDX-License-Identifier: GPL-2.0-or-later
"""The autopilot's decisions (evaluate/autopilot.py) on generated outcomes:
no difference, a clear winner, a slowdown, too few runs, interim looks; the
risk over repeated looks on generated data with no difference at all; and
sacct's lines read into runs (a user's own choice and a failed step not
counted, shapes kept apart)."""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "evaluate"))
import autopilot as ap  # noqa: E402

CANDIDATES = ["none", "compact", "scatter"]


def rule(runs=31, candidates=CANDIDATES):
    return ap.Rule("learn", runs, list(candidates), ["app"])


def sample(rnd, mean, n, sd=0.3):
    return [rnd.gauss(mean, sd) for _ in range(n)]


class Looks(unittest.TestCase):
    def test_planned_looks_spend_alpha_as_t_squared(self):
        self.assertEqual(ap.look_sizes(31), [8, 16, 24, 31])
        self.assertEqual(ap.look_sizes(4), [3, 4])  # the protocol's smallest sample first
        alphas = ap.look_alphas(31, 0.05)
        self.assertAlmostEqual(sum(alphas), 0.05)
        self.assertAlmostEqual(alphas[0], 0.05 * (8 / 31) ** 2)
        self.assertTrue(all(a < b for a, b in zip(alphas, alphas[1:])), "later looks spend more")


class Decisions(unittest.TestCase):
    def test_too_few_runs_is_no_look(self):
        rnd = random.Random(1)
        j = ap.judge_group({c: sample(rnd, 10, 5) for c in CANDIDATES}, rule(), 0.05)
        self.assertEqual(j["state"], "exploring")
        self.assertEqual(j["look"], 0)
        self.assertEqual(j["next"], 8)

    def test_a_clear_winner_is_decided_at_an_interim_look(self):
        rnd = random.Random(2)
        times = {"none": sample(rnd, 10, 16), "compact": sample(rnd, 10, 16), "scatter": sample(rnd, 8, 16)}
        j = ap.judge_group(times, rule(), 0.05)
        self.assertEqual(j["state"], "decided")
        self.assertEqual(j["strategy"], "scatter")
        self.assertLess(j["look"], 4, "decided before the last look")

    def test_a_slowdown_stops_at_a_look_and_the_rest_goes_on(self):
        rnd = random.Random(3)
        times = {"none": sample(rnd, 10, 12), "compact": sample(rnd, 20, 8), "scatter": sample(rnd, 10, 12)}
        j = ap.judge_group(times, rule(), 0.05)
        self.assertEqual(j["state"], "exploring")
        self.assertEqual(j["stopped"], {"compact": 1})
        self.assertEqual(j["active"], ["none", "scatter"])
        self.assertEqual(j["next"], 16, "the next look waits for none and scatter only")

    def test_no_difference_keeps_the_baseline_at_the_last_look(self):
        rnd = random.Random(4)
        times = {c: sample(rnd, 10, 31) for c in CANDIDATES}
        j = ap.judge_group(times, rule(), 0.05)
        self.assertEqual(j["state"], "baseline")
        self.assertEqual(j["strategy"], "none")
        self.assertEqual(j["look"], 4)

    def test_a_look_is_the_same_however_often_it_is_taken(self):
        rnd = random.Random(5)
        times = {c: sample(rnd, 10, 20) for c in CANDIDATES}
        first = ap.judge_group(times, rule(), 0.05)
        # Runs past the look do not change it: the look uses its first 16.
        more = {c: t + sample(rnd, 5, 3) for c, t in times.items()}
        second = ap.judge_group(more, rule(), 0.05)
        self.assertEqual((first["look"], first["state"]), (second["look"], second["state"]))
        self.assertEqual(first["result"]["scatter"]["mean"]["p_value"], second["result"]["scatter"]["mean"]["p_value"])

    def test_the_risk_over_all_looks_stays_within_alpha_on_data_with_no_difference(self):
        # 1500 learning sessions of three candidates alike: adopting any
        # candidate is a false positive. Spent over 4 looks, the risk stays
        # within alpha (plus three standard errors of the estimate).
        reps, alpha, false = 1500, 0.05, 0
        for i in range(reps):
            rnd = random.Random(1000 + i)
            times = {c: sample(rnd, 10, 31, 1.0) for c in CANDIDATES}
            false += ap.judge_group(times, rule(), alpha)["state"] == "decided"
        bound = alpha + 3 * (alpha * (1 - alpha) / reps) ** 0.5
        self.assertLessEqual(false / reps, bound)


SEP = ap.SEP


def sacct_lines(rows):
    return "\n".join(SEP.join(r) for r in rows) + "\n"


def job(jid, comment, partition="debug", name="busy_pair"):
    return [str(jid), name, "alice", "acct", partition, "COMPLETED", "3", "1", "", "2", "sbatch ...", comment]


def step(jid, n, elapsed, state="COMPLETED", submit="srun ./busy_pair", tasks="1", cpus="2", name="busy_pair"):
    return ["%d.%d" % (jid, n), name, "", "", "", state, str(elapsed), "1", tasks, cpus, submit, ""]


class Accounting(unittest.TestCase):
    def test_steps_join_their_jobs_decision(self):
        d = "other | slurm-pin: rule=learn mode=default strategy=scatter thread_binding=auto tasks=1 threads=4 explore=busy_pair"
        text = sacct_lines([
            job(10, d), step(10, 0, 3), ["10.batch", "batch", "", "", "", "COMPLETED", "3", "1", "1", "2", "", ""],
            job(11, d.replace("scatter", "compact")), step(11, 0, 6, state="FAILED"),
            job(12, d), step(12, 0, 3, submit="srun --pin-strategy=compact ./busy_pair"),
            job(13, d + " applied=no"), step(13, 0, 3),
            job(14, "slurm-pin: rule=other mode=default strategy=compact"), step(14, 0, 3),
            job(15, d), step(15, 0, 3, tasks="2", cpus="4"),
            job(16, d), step(16, 0, 3, submit="srun --mpi=pmix x | y" + SEP + "z"),
        ])
        runs = ap.read_sacct(text)
        # 16.0's submit line holds the separator: not read (a user's text never moves a field).
        self.assertEqual([r["id"] for r in runs], ["10.0", "11.0", "12.0", "15.0"])
        self.assertEqual(runs[0]["strategy"], "scatter")
        self.assertEqual(runs[0]["shape"], (1, 1, 2, "4", "1"))
        self.assertTrue(runs[2]["own_choice"])
        groups = ap.group_runs(runs, {"learn": rule()})
        self.assertEqual(len(groups), 2, "another shape is another group")
        g = groups[("learn", "busy_pair", "busy_pair", "debug", (1, 1, 2, "4", "1"))]
        self.assertEqual([r["id"] for r in g["runs"]], ["10.0"])
        self.assertEqual([r["id"] for r in g["failed"]], ["11.0"])
        self.assertEqual([r["id"] for r in g["own"]], ["12.0"])

    def test_a_name_cannot_forge_or_repeat_a_run(self):
        d = "slurm-pin: rule=learn mode=default strategy=compact threads=4 explore=busy_pair"
        forged_step = SEP.join(step(20, 1, 1)[:2]) + "\n" + SEP.join(step(20, 1, 1)[2:])
        text = sacct_lines([
            job(20, d), step(20, 0, 7),
            # a step name holding a newline and a whole forged line after it
            ["20.1", "x\n" + SEP.join(step(20, 2, 1)[:-1])] + step(20, 1, 1)[2:],
            job(21, d), step(21, 0, 7), step(21, 0, 1),  # one id twice: the job is dropped
            job(22, d), step(23, 0, 1),  # a step after another job's line
        ]) + forged_step + "\n"
        rows, dropped = ap.accounting_rows(text)
        runs = ap.read_sacct(text)
        self.assertEqual([(r["id"], r["elapsed"]) for r in runs], [("20.0", 7)])
        self.assertGreaterEqual(dropped, 5)

    def test_the_learned_file_holds_the_rule_with_its_evidence(self):
        d = "slurm-pin: rule=learn mode=default strategy=%s thread_binding=auto tasks=1 threads=4 explore=busy_pair env.ODD=a%%20b%%3Dc%%25d env.OMP_WAIT_POLICY=passive"
        rows, jid, rnd = [], 100, random.Random(7)
        for n in range(16):
            for c, mean in (("none", 10), ("compact", 10), ("scatter", 5)):
                rows += [job(jid, d % c), step(jid, 0, max(1, round(rnd.gauss(mean, 1))))]
                jid += 1
        analysis = ap.analyse(ap.read_sacct(sacct_lines(rows)), {"learn": rule()}, 0.05)
        text = ap.learned_text(analysis, 0.05)
        self.assertIn('{ name = "autopilot-busy_pair-debug-N1-n1-c2-t4", learned_by = "learn",\n'
                      '      match = { app = "busy_pair", partition = "debug", '
                      'nodes = { min = 1, max = 1 }, tasks = { min = 1, max = 1 }, threads = { min = 4, max = 4 } },',
                      text)
        self.assertIn('action = { strategy = "scatter", thread_binding = "auto", env = { ODD = "a b=c%d", OMP_WAIT_POLICY = "passive" } } },',
                      text)
        self.assertIn("-- chosen: scatter: speedup of the", text)
        status = ap.status_text(analysis, 0.05)
        self.assertIn("decided: scatter", status)
        self.assertEqual(ap.shown("a\x1b[2Jb\\"), "a\\027[2Jb\\092")
        # The same shape run under two step names: two rules, two names.
        for a in analysis:
            a2 = dict(a, key=a["key"][:2] + ("wrapper",) + a["key"][3:])
        twice = ap.learned_text(analysis + [a2], 0.05)
        self.assertIn('name = "autopilot-busy_pair-debug-N1-n1-c2-t4", learned_by', twice)
        self.assertIn('name = "autopilot-busy_pair-debug-N1-n1-c2-t4-2", learned_by', twice)


def job_of(jid, comment, user, name="halo"):
    return [str(jid), name, user, "acct", "debug", "COMPLETED", "3", "1", "", "4", "sbatch ...", comment]


class Recordings(unittest.TestCase):
    RECORD = "slurm-pin: rule=learn mode=default strategy=none tasks=4 threads=%s explore=halo record=halo"
    LPGP = "slurm-pin: rule=learn mode=default strategy=lpgp profile=halo tasks=4 threads=1 %sexplore=halo"

    def rules(self):
        return {"learn": ap.Rule("learn", 5, ["none", "compact", "lpgp"], ["halo"], record=1)}

    def test_recording_jobs_are_no_runs_of_none_and_group_by_user(self):
        text = sacct_lines([
            job_of(30, self.RECORD % "1", "alice"), step(30, 0, 9, tasks="4", cpus="4", name="halo"),
            step(30, 1, 9, state="FAILED", tasks="4", cpus="4", name="halo"),
            job_of(31, self.RECORD % "2", "bob"), step(31, 0, 9, tasks="4", cpus="4", name="halo"),
            job_of(32, "slurm-pin: rule=learn mode=default strategy=none tasks=4 threads=1 explore=halo", "alice"),
            step(32, 0, 3, tasks="4", cpus="4", name="halo"),
        ])
        runs = ap.read_sacct(text)
        groups = ap.group_runs(runs, self.rules())
        self.assertEqual([r["id"] for g in groups.values() for r in g["runs"]], ["32.0"],
                         "a recording job's steps are not the baseline's runs")
        recs = ap.autopilot_traffic.recordings(runs, self.rules())
        self.assertEqual(sorted(recs), [("learn", "halo", "alice"), ("learn", "halo", "bob")])
        self.assertEqual(recs[("learn", "halo", "alice")]["threads"], 1)
        self.assertEqual(recs[("learn", "halo", "bob")]["threads"], 2)
        self.assertEqual([s["id"] for s in recs[("learn", "halo", "alice")]["steps"]], ["30.0", "30.1"])
        lines = ap.autopilot_traffic.recorded_text({k: recs[k] for k in [("learn", "halo", "alice")]}, ap.lua_string)
        self.assertEqual(lines, ['    { rule = "learn", app = "halo", user = "alice", threads = 1, job = 30, ranks = 4 },'])

    def test_the_user_store_is_listed_by_name_only(self):
        import tempfile
        with tempfile.TemporaryDirectory() as home:
            d = os.path.join(home, ap.autopilot_traffic.USER_STORE, "halo")
            os.makedirs(d)
            for name in ("t1.v1.profile", "t4.v2.profile", "t8.v1.profile.tmp", "notes"):
                open(os.path.join(d, name), "w").close()
            os.symlink("/etc/passwd", os.path.join(d, "t2.v1.profile"))
            self.assertEqual(ap.autopilot_traffic.store_threads(home, "halo"), {1, 4}, "no link, no other name")
            self.assertEqual(ap.autopilot_traffic.store_threads(home, "other"), set())

    def test_a_winner_measured_with_one_users_profile_waits_for_promotion(self):
        rows, jid, rnd = [], 200, random.Random(9)
        for n in range(16):
            for c, mean in (("none", 10), ("compact", 10), ("lpgp", 5)):
                d = self.LPGP % "store=user " if c == "lpgp" else \
                    "slurm-pin: rule=learn mode=default strategy=%s tasks=4 threads=1 explore=halo" % c
                rows += [job_of(jid, d, "alice"), step(jid, 0, max(1, round(rnd.gauss(mean, 1))), tasks="4", cpus="4",
                                                       name="halo")]
                jid += 1
        runs = ap.read_sacct(sacct_lines(rows))
        analysis = ap.analyse(runs, self.rules(), 0.05)
        self.assertEqual(analysis[0]["judged"]["strategy"], "lpgp")
        text = ap.learned_text(analysis, 0.05)
        self.assertNotIn("learned_by", text, "no rule for everyone from one user's profile")
        self.assertIn("promote halo --user alice", text)
        self.assertIn("promote halo --user alice", ap.status_text(analysis, 0.05))
        # Promoted: the last lpgp runs use the site store's profile, and the rule is written.
        rows += [job_of(jid, self.LPGP % "", "bob"), step(jid, 0, 5, tasks="4", cpus="4", name="halo")]
        analysis = ap.analyse(ap.read_sacct(sacct_lines(rows)), self.rules(), 0.05)
        text = ap.learned_text(analysis, 0.05)
        self.assertIn('action = { strategy = "lpgp", profile = "halo" } },', text)


if __name__ == "__main__":
    unittest.main()
