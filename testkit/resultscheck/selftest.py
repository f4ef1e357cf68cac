#!/usr/bin/python3
"""Hand-computed cases for check_results.py.

Run:  /usr/bin/python3 testkit/resultscheck/selftest.py   (exit 0 when all pass)

Point estimates and differences are checked exactly (or to 1e-12 where the
hand value is a fraction a float cannot hold); permutation p-values against
their exact values (from enumerating every permutation by hand) within
Monte Carlo tolerance; the linear quantile and Holm exactly.
"""

import json
import os
import sys
import unittest

sys.dont_write_bytecode = True  # leave no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_results as cr  # noqa: E402

# Minimal copies of the built-ins' questions (what the statistics read).
LEGAL = {
    "name": "legal-gaps", "version": 1, "rows": {"per": "record"},
    "questions": [
        {"name": "gaps", "type": "multi", "scope": "row",
         "options": [{"code": "0"}, {"code": "1"}, {"code": "2"}, {"code": "3"}]},
        {"name": "note", "type": "text", "scope": "row"},
    ],
}
PREF = {
    "name": "preference-likert", "version": 1, "rows": {"per": "record"},
    "shuffle": {
        "candidates": [
            {"code": "first", "questions": ["first_prediction_likert"]},
            {"code": "second", "questions": ["second_prediction_likert"]},
            {"code": "third", "questions": ["third_prediction_likert"]},
        ],
        "choices": ["best_prediction_reference"],
    },
    "questions": [
        {"name": "best_prediction_reference", "type": "choice", "scope": "row",
         "options": [{"code": "first"}, {"code": "second"}, {"code": "third"}, {"code": "tie"}]},
        {"name": "first_prediction_likert", "type": "scale", "min": 1, "max": 5, "unanswered": 0},
        {"name": "second_prediction_likert", "type": "scale", "min": 1, "max": 5, "unanswered": 0},
        {"name": "third_prediction_likert", "type": "scale", "min": 1, "max": 5, "unanswered": 0},
    ],
}


def rec(template, unit, annotator, values, status="complete", **extra):
    r = {"template": {"name": template["name"], "version": 1}, "unit": unit,
         "item": unit, "annotator": annotator, "status": status, "values": values}
    r.update(extra)
    return r


# Two systems, three items each; llama3-1 has two annotators.
LEGAL_RECORDS = [
    rec(LEGAL, "gpt4o-1", "ak", {"gaps": ["1"], "note": "x"}),
    rec(LEGAL, "gpt4o-2", "ak", {"gaps": ["1", "3"]}),
    rec(LEGAL, "gpt4o-3", "ak", {"gaps": ["0"]}),
    rec(LEGAL, "llama3-1", "ak", {"gaps": ["1"]}),
    rec(LEGAL, "llama3-1", "bt", {"gaps": ["2"]}),
    rec(LEGAL, "llama3-2", "ak", {"gaps": ["3"]}),
    rec(LEGAL, "llama3-3", "ak", {"gaps": ["0"]}),
    rec(LEGAL, "llama3-3", "bt", {}, status="partial"),
    rec(LEGAL, "llama3-4", "bt", {}, status="empty"),
]


def find(q, kind, **kw):
    for x in q[kind]:
        if all(x.get(k) == v for k, v in kw.items()):
            return x
    raise KeyError(kw)


def question(out, name):
    return next(q for q in out["questions"] if q["question"] == name)


class Quantile(unittest.TestCase):
    def test_linear_known_list(self):
        xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        # h = 9 * 0.025 = 0.225 -> 1 + 0.225; h = 9 * 0.975 = 8.775 -> 9 + 0.775
        # (numpy.percentile(xs, [2.5, 97.5]) gives the same)
        self.assertAlmostEqual(cr.quantile_linear(xs, 0.025), 1.225, places=12)
        self.assertAlmostEqual(cr.quantile_linear(xs, 0.975), 9.775, places=12)
        self.assertEqual(cr.quantile_linear([10, 20, 30, 40], 0.5), 25.0)
        self.assertEqual(cr.quantile_linear([10, 20, 30, 40], 0.25), 17.5)
        self.assertEqual(cr.quantile_linear([10, 20, 30, 40], 0.0), 10.0)
        self.assertEqual(cr.quantile_linear([10, 20, 30, 40], 1.0), 40.0)
        self.assertEqual(cr.quantile_linear([7], 0.3), 7.0)

    def test_interval(self):
        xs = [float(i) for i in range(1, 11)]
        lo, hi = cr.percentile_interval(list(reversed(xs)), 0.95)
        self.assertAlmostEqual(lo, 1.225, places=12)
        self.assertAlmostEqual(hi, 9.775, places=12)


class Holm(unittest.TestCase):
    def test_three(self):
        # sorted .0625*3 = .1875, .125*2 = .25, .25*1 = .25
        self.assertEqual(cr.holm([0.125, 0.25, 0.0625]), [0.25, 0.25, 0.1875])

    def test_monotone_and_cap(self):
        # .25*3 = .75, .5*2 = 1.0, .75*1 = .75 -> monotone max 1.0
        self.assertEqual(cr.holm([0.5, 0.75, 0.25]), [1.0, 1.0, 0.75])
        # .01*3, then .02*2 = .04, .5*1 = .5
        adj = cr.holm([0.5, 0.01, 0.02])
        self.assertAlmostEqual(adj[1], 0.03, places=15)
        self.assertAlmostEqual(adj[2], 0.04, places=15)
        self.assertEqual(adj[0], 0.5)

    def test_none_skipped(self):
        self.assertEqual(cr.holm([None, 0.25, 0.125]), [None, 0.25, 0.25])


class Statistics(unittest.TestCase):
    def test_median(self):
        self.assertEqual(cr.median([5, 2, 4]), 4.0)
        self.assertEqual(cr.median([5, 2, 4, 3]), 3.5)
        self.assertIsNone(cr.median([]))

    def test_bootstrap_constant(self):
        import random
        self.assertEqual(cr.bootstrap_estimate([0.5, 0.5, 0.5], cr.mean, 100, 0.95, random.Random(1)), [0.5, 0.5])

    def test_bootstrap_two_points(self):
        # mean of 2 draws from {0, 1}: 0 (1/4), .5 (1/2), 1 (1/4): 2.5% and 97.5% quantiles 0 and 1
        import random
        self.assertEqual(cr.bootstrap_estimate([0.0, 1.0], cr.mean, 4000, 0.95, random.Random(3)), [0.0, 1.0])


class LegalPaired(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = cr.results(LEGAL_RECORDS, [], LEGAL, "legal-gaps",
                             resamples=2000, permutations=20000, seed=7)

    def test_shape(self):
        o = self.out
        self.assertEqual(o["schema"], "annosheet.results/1")
        self.assertEqual(o["basis"], "annotators")
        self.assertEqual(o["params"], {"level": 0.95, "resamples": 2000, "permutations": 20000, "seed": 7})
        self.assertEqual([q["question"] for q in o["questions"]], ["gaps", "note"])
        q = question(o, "gaps")
        self.assertEqual((q["type"], q["by"], q["paired"]), ("multi", "system", True))
        # estimates: option order 0..3, groups sorted within
        self.assertEqual([(e["option"], e["group"]) for e in q["estimates"]][:4],
                         [("0", "gpt4o"), ("0", "llama3"), ("1", "gpt4o"), ("1", "llama3")])
        self.assertEqual(q["left_out"], {"partial": 1, "empty": 1, "unresolved": 0,
                                         "no_gold": 0, "unpaired": 0})

    def test_multi_share(self):
        q = question(self.out, "gaps")
        # gpt4o option 1: units 1, 1, 0 -> 2/3
        e = find(q, "estimates", group="gpt4o", option="1")
        self.assertEqual(e["value"], 2.0 / 3.0)
        self.assertEqual(e["units"], 3)
        # llama3 option 1: unit 1 = (1 + 0)/2 annotators = .5; units 2, 3 = 0 -> .5/3
        e = find(q, "estimates", group="llama3", option="1")
        self.assertEqual(e["value"], 0.5 / 3.0)
        # llama3 option 2: .5, 0, 0; option 0: 0, 0, 1 (the partial record does not count)
        self.assertEqual(find(q, "estimates", group="llama3", option="2")["value"], 0.5 / 3.0)
        self.assertEqual(find(q, "estimates", group="llama3", option="0")["value"], 1.0 / 3.0)
        lo, hi = e["ci"]
        self.assertTrue(0.0 <= lo <= e["value"] <= hi <= 0.5)

    def test_paired_comparison(self):
        q = question(self.out, "gaps")
        c = find(q, "comparisons", option="1")
        self.assertEqual((c["a"], c["b"]), ("gpt4o", "llama3"))
        self.assertAlmostEqual(c["difference"], 0.5, places=12)
        # item differences (.5, 1, 0): |sum| / 3 >= 1.5/3 for 2 of the 4 sign
        # patterns of items 1 and 2 -> exact p = 0.5
        self.assertAlmostEqual(c["p"], 0.5, delta=0.02)
        self.assertEqual(c["p_holm"], c["p"])  # one pair: Holm changes nothing
        # option 0: differences (0, 0, 0) -> every permutation is as extreme: p = 1
        c0 = find(q, "comparisons", option="0")
        self.assertEqual(c0["difference"], 0.0)
        self.assertEqual(c0["p"], 1.0)

    def test_text_answered(self):
        q = question(self.out, "note")
        self.assertEqual(find(q, "estimates", group="gpt4o")["value"], 1.0 / 3.0)
        self.assertEqual(find(q, "estimates", group="llama3")["value"], 0.0)


class LegalUnpaired(unittest.TestCase):
    def test_unpaired_permutation(self):
        out = cr.results(LEGAL_RECORDS, [], LEGAL, "legal-gaps-unpaired",
                         resamples=500, permutations=20000, seed=3)
        q = question(out, "gaps")
        self.assertFalse(q["paired"])
        c = find(q, "comparisons", option="1")
        self.assertAlmostEqual(c["difference"], 0.5, places=12)
        # pooled (1, 1, 0 | .5, 0, 0): |diff| >= .5 iff A's sum >= 2 or <= .5;
        # 4 + 4 of the C(6,3) = 20 splits -> exact p = 0.4
        self.assertAlmostEqual(c["p"], 0.4, delta=0.02)


class PreferencePaired(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        def lik(a, b, c):
            return {"first_prediction_likert": a, "second_prediction_likert": b,
                    "third_prediction_likert": c}
        rs = [
            rec(PREF, "t1", "ak", dict(lik(5, 3, 1), best_prediction_reference="first")),
            rec(PREF, "t2", "ak", dict(lik(2, 3, 2), best_prediction_reference="first")),
            rec(PREF, "t3", "ak", dict(lik(4, 1, 5), best_prediction_reference="second")),
            rec(PREF, "t4", "ak", dict(lik(3, 4, 3), best_prediction_reference="tie")),
            # t5: first unanswered (0): counts for second and third only
            rec(PREF, "t5", "ak", dict(lik(0, 2, 2), best_prediction_reference="third")),
        ]
        cls.out = cr.results(rs, [], PREF, "preference", resamples=500,
                             permutations=20000, seed=5)

    def test_entries(self):
        names = [(q["question"], q.get("questions")) for q in self.out["questions"]]
        self.assertEqual(names, [
            ("best_prediction_reference", None),
            ("first_prediction_likert", ["first_prediction_likert",
                                         "second_prediction_likert",
                                         "third_prediction_likert"])])

    def test_scale_mean_median(self):
        q = question(self.out, "first_prediction_likert")
        self.assertEqual((q["by"], q["paired"]), ("candidate", True))
        # first: 5, 2, 4, 3 -> mean 3.5, median 3.5; second: 3, 3, 1, 4, 2 -> 2.6, 3
        self.assertEqual(find(q, "estimates", group="first", statistic="mean")["value"], 3.5)
        self.assertEqual(find(q, "estimates", group="first", statistic="median")["value"], 3.5)
        self.assertEqual(find(q, "estimates", group="first", statistic="mean")["units"], 4)
        self.assertEqual(find(q, "estimates", group="second", statistic="mean")["value"], 13 / 5)
        self.assertEqual(find(q, "estimates", group="second", statistic="median")["value"], 3.0)
        self.assertEqual(q["left_out"]["unpaired"], 1)  # t5 lacks first

    def test_median_difference(self):
        q = question(self.out, "first_prediction_likert")
        # over t1..t4: median(5,2,4,3)=3.5 - median(3,3,1,4)=3 -> 0.5
        c = find(q, "comparisons", a="first", b="second", statistic="median")
        self.assertEqual(c["difference"], 0.5)
        # mean: 3.5 - 11/4 = 0.75
        c = find(q, "comparisons", a="first", b="second", statistic="mean")
        self.assertEqual(c["difference"], 0.75)
        # three pairs per statistic, Holm over them
        ms = [x for x in q["comparisons"] if x["statistic"] == "mean"]
        self.assertEqual([(x["a"], x["b"]) for x in ms],
                         [("first", "second"), ("first", "third"), ("second", "third")])
        self.assertEqual([x["p_holm"] for x in ms], cr.holm([x["p"] for x in ms]))

    def test_win_rate_and_tie(self):
        q = question(self.out, "best_prediction_reference")
        wr = [(e["group"], e["value"]) for e in q["estimates"] if e["statistic"] == "win_rate"]
        self.assertEqual(wr, [("first", 0.4), ("second", 0.2), ("third", 0.2)])
        tie = find(q, "estimates", statistic="share", option="tie")
        self.assertIsNone(tie["group"])
        self.assertEqual(tie["value"], 0.2)
        self.assertTrue(all(c["statistic"] == "win_rate" for c in q["comparisons"]))
        c = find(q, "comparisons", a="first", b="second")
        self.assertAlmostEqual(c["difference"], 0.2, places=12)


class Gold(unittest.TestCase):
    def test_gold_basis(self):
        gold = [
            rec(LEGAL, "gpt4o-1", "gold", {"gaps": ["2"]}),
            rec(LEGAL, "gpt4o-2", "gold", {}, unresolved=["gaps"]),
            rec(LEGAL, "llama3-1", "gold", {"gaps": ["2"]},
                provenance={"note": {"kind": "unresolved"}}),
            rec(LEGAL, "llama3-2", "gold", {"gaps": ["3"]}),
        ]
        out = cr.results(LEGAL_RECORDS, gold, LEGAL, "legal-gaps",
                         resamples=200, permutations=200, seed=1)
        self.assertEqual(out["basis"], "gold")
        q = question(out, "gaps")
        # gold values only: gpt4o has unit 1 (2); llama3 units 1 (2), 2 (3)
        self.assertEqual(find(q, "estimates", group="gpt4o", option="2")["value"], 1.0)
        self.assertEqual(find(q, "estimates", group="gpt4o", option="2")["units"], 1)
        self.assertEqual(find(q, "estimates", group="llama3", option="2")["value"], 0.5)
        # no gold for gpt4o-3, llama3-3, llama3-4; item 2 has only llama3
        self.assertEqual(q["left_out"]["unresolved"], 1)
        self.assertEqual(q["left_out"]["no_gold"], 3)
        self.assertEqual(q["left_out"]["unpaired"], 1)
        self.assertEqual(question(out, "note")["left_out"]["unresolved"], 1)

    def test_empty_group_has_null_ci(self):
        out = cr.results(LEGAL_RECORDS, [rec(LEGAL, "gpt4o-2", "gold", {}, unresolved=["gaps"])],
                         LEGAL, "legal-gaps", resamples=50, permutations=50, seed=1)
        q = question(out, "gaps")
        e = find(q, "estimates", group="gpt4o", option="1")
        self.assertIsNone(e["value"])
        self.assertIsNone(e["ci"])
        self.assertIn("note", e)
        c = find(q, "comparisons", option="1")
        self.assertIsNone(c["p"])
        self.assertIn("note", c)


class CommandLine(unittest.TestCase):
    def test_runs(self):
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            rp, tp = os.path.join(d, "r.jsonl"), os.path.join(d, "t.json")
            with open(rp, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in LEGAL_RECORDS))
            with open(tp, "w") as f:
                json.dump(LEGAL, f)
            p = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_results.py"),
                                "--records", rp, "--template", tp, "--design", "legal-gaps",
                                "--resamples", "100", "--permutations", "100"],
                               capture_output=True, text=True, check=True)
            out = json.loads(p.stdout)
            self.assertEqual(out["schema"], "annosheet.results/1")
            self.assertEqual(out["params"]["resamples"], 100)


if __name__ == "__main__":
    unittest.main(verbosity=1)
