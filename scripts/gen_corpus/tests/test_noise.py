"""OCR noise: levels, how much of a text a rescan changes, --max-noise."""

import unittest
from collections import defaultdict
from random import Random

from gen_corpus.noise import NOISE_LEVELS, ocr_noise
from gen_corpus.tests.helpers import changed_share, parse, run


class Noise(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raw_docs, raw_truth, _ = run("--docs", "3000", "--seed", "21")
        cls.docs = {d["id"]: d for d in parse(raw_docs)}
        cls.truth = parse(raw_truth)

    def test_levels_are_from_the_set(self):
        levels = {t["noise"] for t in self.truth}
        self.assertLessEqual(levels, {0.0, *NOISE_LEVELS})
        self.assertTrue(all(t["noise"] > 0 for t in self.truth if t["kind"] == "rescan"))
        self.assertTrue(all(t["noise"] == 0 for t in self.truth if t["kind"] in ("original", "reupload")))

    def test_rescan_changes_about_that_share_of_words(self):
        by_level = defaultdict(list)
        for t in self.truth:
            if t["kind"] == "rescan":
                orig = self.docs[t["cluster"]]["content"]
                if len(orig.split()) >= 100:
                    by_level[t["noise"]].append(changed_share(orig, self.docs[t["id"]]["content"]))
        for level in (0.01, 0.03, 0.05, 0.10):
            shares = by_level[level]
            self.assertGreaterEqual(len(shares), 10, level)
            mean = sum(shares) / len(shares)
            self.assertAlmostEqual(mean, level, delta=level * 0.3, msg=f"level {level}: mean {mean:.3f}")
            if level == 0.05:
                for s in shares:
                    self.assertTrue(0.025 <= s <= 0.09, f"rescan at 0.05 changed {s:.3f} of its words")

    def test_max_noise_is_respected(self):
        _, raw_truth, _ = run("--docs", "400", "--seed", "3", "--max-noise", "0.03")
        self.assertLessEqual(max(t["noise"] for t in parse(raw_truth)), 0.03)
        _, raw_truth, _ = run("--docs", "200", "--seed", "3", "--max-noise", "0")
        truth = parse(raw_truth)
        self.assertEqual({t["noise"] for t in truth}, {0.0})
        self.assertNotIn("rescan", {t["kind"] for t in truth})

    def test_ocr_noise_function(self):
        rng = Random(1)
        text = " ".join(f"Rechnungsnummer{i} Zählerstand" for i in range(100))
        noisy = ocr_noise(text, 0.05, rng)
        self.assertNotEqual(noisy, text)
        self.assertAlmostEqual(changed_share(text, noisy), 0.05, delta=0.02)
