"""A large corpus keeps ids dense, copies after their originals, and every kind."""

import unittest
from collections import Counter

from gen_corpus import generate
from gen_corpus.kinds import KINDS


class Scale(unittest.TestCase):
    def test_twenty_thousand_documents(self):
        ids, kinds, clusters_ok = 0, Counter(), True
        originals = set()
        for d in generate(20000, 99):
            ids += 1
            self.assertEqual(d["id"], ids)
            kinds[d["kind"]] += 1
            if d["kind"] == "original":
                originals.add(d["id"])
            else:
                clusters_ok &= d["cluster"] in originals
        self.assertEqual(ids, 20000)
        self.assertTrue(clusters_ok)
        self.assertEqual(set(kinds), {"original", *KINDS})
