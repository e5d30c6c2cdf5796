"""The example-sized corpus: shape of the records, clusters, kinds, and that examples/ is current."""

import difflib
import json
import os
import re
import unittest
from collections import Counter, defaultdict

from gen_corpus.kinds import KINDS
from gen_corpus.tests.helpers import ROOT, parse, run

EXAMPLE_ARGS = ["--docs", "320", "--seed", "7"]
DOC_KEYS = ["id", "title", "content", "created", "added", "modified", "correspondent", "document_type",
            "tags", "archive_serial_number", "original_file_name", "page_count", "mime_type"]
TRUTH_KEYS = ["id", "cluster", "kind", "noise", "family"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")


class ExampleCorpus(unittest.TestCase):
    """Checks on the example-sized corpus (the exact command behind examples/)."""

    @classmethod
    def setUpClass(cls):
        cls.raw_docs, cls.raw_truth, cls.stats = run(*EXAMPLE_ARGS, "--stats")
        cls.docs, cls.truth = parse(cls.raw_docs), parse(cls.raw_truth)
        cls.by_id = {d["id"]: d for d in cls.docs}
        cls.truth_by_id = {t["id"]: t for t in cls.truth}

    def test_exact_count_and_ids(self):
        self.assertEqual(len(self.docs), 320)
        self.assertEqual([d["id"] for d in self.docs], list(range(1, 321)))

    def test_truth_matches_docs(self):
        self.assertEqual([t["id"] for t in self.truth], [d["id"] for d in self.docs])

    def test_json_fields_and_types(self):
        for line in self.raw_docs.decode("utf-8").splitlines():
            d = json.loads(line)
            self.assertEqual(list(d), DOC_KEYS)
            self.assertEqual(line, json.dumps(d, ensure_ascii=False, separators=(",", ":")))
            self.assertIsInstance(d["title"], str)
            self.assertIsInstance(d["content"], str)
            self.assertTrue(DATE.match(d["created"]), d["created"])
            self.assertTrue(STAMP.match(d["added"]), d["added"])
            self.assertTrue(STAMP.match(d["modified"]), d["modified"])
            self.assertGreaterEqual(d["modified"], d["added"])
            self.assertLessEqual(d["created"], d["added"][:10])
            self.assertIsInstance(d["correspondent"], (str, type(None)))
            self.assertIsInstance(d["document_type"], (str, type(None)))
            self.assertTrue(all(isinstance(t, str) for t in d["tags"]))
            self.assertIsInstance(d["archive_serial_number"], (int, type(None)))
            self.assertTrue(d["original_file_name"].endswith(".pdf"))
            self.assertIsInstance(d["page_count"], int)
            self.assertGreaterEqual(d["page_count"], 1)
            self.assertEqual(d["mime_type"], "application/pdf")
            self.assertIn("\n", d["content"])
        asns = [d["archive_serial_number"] for d in self.docs if d["archive_serial_number"] is not None]
        self.assertEqual(len(asns), len(set(asns)), "archive serial numbers are unique in Paperless")
        for line in self.raw_truth.decode("utf-8").splitlines():
            t = json.loads(line)
            self.assertEqual(list(t), TRUTH_KEYS)
            self.assertIsInstance(t["cluster"], int)
            self.assertIn(t["kind"], ("original",) + KINDS)
            self.assertIsInstance(t["noise"], float)
            self.assertIsInstance(t["family"], (str, type(None)))

    def test_clusters_consistent(self):
        for t in self.truth:
            root = self.truth_by_id[t["cluster"]]
            self.assertEqual(root["kind"], "original")
            self.assertEqual(root["cluster"], root["id"])
            self.assertEqual(t["family"], root["family"])
            if t["kind"] == "original":
                self.assertEqual(t["cluster"], t["id"])
                self.assertEqual(t["noise"], 0.0)
            else:
                self.assertLess(t["cluster"], t["id"], "a copy is added after its original")
                doc, orig = self.by_id[t["id"]], self.by_id[t["cluster"]]
                self.assertGreater(doc["added"], orig["added"])
        sizes = Counter(t["cluster"] for t in self.truth)
        groups = [n for n in sizes.values() if n > 1]
        self.assertGreaterEqual(len(groups), 40)
        self.assertTrue(all(2 <= n <= 5 for n in groups), Counter(groups))

    def test_every_kind_appears(self):
        kinds = Counter(t["kind"] for t in self.truth)
        for kind in KINDS:
            self.assertGreater(kinds[kind], 0, kind)

    def test_copies_not_always_adjacent(self):
        copies = [t for t in self.truth if t["kind"] != "original"]
        adjacent = sum(t["id"] == t["cluster"] + 1 for t in copies)
        self.assertLess(adjacent, len(copies) * 0.3)

    def test_hard_negatives(self):
        clusters = defaultdict(set)
        members = Counter()
        for t in self.truth:
            if t["family"]:
                clusters[t["family"]].add(t["cluster"])
                members[t["family"]] += 1
        template = [f for f, c in clusters.items()
                    if len(c) >= 3 and not f.startswith(("letter-", "terms-"))]
        self.assertGreaterEqual(sum(members[f] for f in template), 60)
        self.assertTrue(any(len(c) >= 2 for f, c in clusters.items() if f.startswith("letter-")),
                        "same letter to two people")
        self.assertTrue(any(len(c) >= 2 for f, c in clusters.items() if f.startswith("terms-")),
                        "two editions of terms and conditions")

    def test_same_letter_to_two_people_differs_only_in_recipient(self):
        origs = defaultdict(list)
        for t in self.truth:
            if t["kind"] == "original" and (t["family"] or "").startswith("letter-"):
                origs[t["family"]].append(self.by_id[t["id"]]["content"])
        pairs = [v[:2] for v in origs.values() if len(v) >= 2]
        self.assertTrue(pairs)
        for a, b in pairs:
            self.assertNotEqual(a, b)
            self.assertGreater(difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio(), 0.85)

    def test_kind_shapes(self):
        for t in self.truth:
            if t["kind"] == "original" or t["noise"]:
                continue
            copy, orig = self.by_id[t["id"]]["content"], self.by_id[t["cluster"]]["content"]
            n_orig, n_copy = len(orig.split()), len(copy.split())
            if t["kind"] == "reupload":
                self.assertEqual(copy, orig)
            elif t["kind"] == "page-added":
                self.assertTrue(copy.startswith(orig))
                self.assertGreater(n_copy, n_orig * 1.15)
            elif t["kind"] == "page-removed" and n_orig >= 100:
                self.assertTrue(0.5 * n_orig <= n_copy <= 0.85 * n_orig, (n_orig, n_copy))
            elif t["kind"] == "stamp":
                self.assertEqual(len(copy.split("\n")), len(orig.split("\n")) + 1)
            elif t["kind"] == "cover-page":
                self.assertTrue(copy.endswith(orig))
            elif t["kind"] == "header-reordered":
                self.assertNotEqual(copy, orig)
                self.assertEqual(sorted(copy.split("\n")), sorted(orig.split("\n")))

    def test_lengths_and_languages(self):
        words = [len(d["content"].split()) for d in self.docs]
        self.assertTrue(any(w < 20 for w in words), "some tiny documents")
        self.assertGreater(sum(80 <= w <= 600 for w in words), len(words) * 0.6)
        german = sum(("Sehr geehrte" in d["content"] or " EUR" in d["content"] or "ä" in d["content"]
                      or "ü" in d["content"]) for d in self.docs)
        self.assertTrue(0.3 < german / len(self.docs) < 0.7, german)

    def test_stats_match_readme(self):
        with open(os.path.join(ROOT, "examples", "README.md"), encoding="utf-8") as f:
            readme = f.read()
        self.assertIn(self.stats.strip(), readme, "regenerate the counts in examples/README.md")

    def test_examples_are_current(self):
        for name, raw in (("docs.ndjson", self.raw_docs), ("truth.ndjson", self.raw_truth)):
            with open(os.path.join(ROOT, "examples", name), "rb") as f:
                self.assertEqual(f.read(), raw, f"examples/{name} is stale: rerun the command in examples/README.md")
