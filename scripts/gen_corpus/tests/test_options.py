"""--dup-rate and tiny corpora."""

import unittest

from gen_corpus.tests.helpers import parse, run


class Options(unittest.TestCase):
    def test_dup_rate_zero_means_no_copies(self):
        _, raw_truth, _ = run("--docs", "150", "--seed", "4", "--dup-rate", "0")
        self.assertEqual({t["kind"] for t in parse(raw_truth)}, {"original"})

    def test_dup_rate_one_gives_many_groups(self):
        _, raw_truth, _ = run("--docs", "150", "--seed", "4", "--dup-rate", "1")
        truth = parse(raw_truth)
        self.assertEqual(len(truth), 150)
        originals = sum(t["kind"] == "original" for t in truth)
        with_copies = len({t["cluster"] for t in truth if t["kind"] != "original"})
        self.assertGreater(with_copies, originals * 0.9)

    def test_tiny_corpora(self):
        for n in (1, 2, 3, 7):
            raw_docs, raw_truth, _ = run("--docs", str(n), "--seed", "9", "--dup-rate", "1")
            self.assertEqual(len(parse(raw_docs)), n)
            self.assertEqual(len(parse(raw_truth)), n)
