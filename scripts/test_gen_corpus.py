"""Tests for scripts/gen_corpus.py.

Run from the repository root:  python3 -m unittest scripts/test_gen_corpus.py
"""

import contextlib
import difflib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)  # scripts/ is not a package; import the generator by path

import gen_corpus  # noqa: E402

SCRIPT = os.path.join(HERE, "gen_corpus.py")
EXAMPLE_ARGS = ["--docs", "320", "--seed", "7"]
DOC_KEYS = ["id", "title", "content", "created", "added", "modified", "correspondent", "document_type",
            "tags", "archive_serial_number", "original_file_name", "page_count", "mime_type"]
TRUTH_KEYS = ["id", "cluster", "kind", "noise", "family"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")


def run(*args: str) -> tuple[bytes, bytes, str]:
    """Run the generator in-process; return (docs bytes, truth bytes, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        docs, truth = os.path.join(tmp, "docs.ndjson"), os.path.join(tmp, "truth.ndjson")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            gen_corpus.main([*args, "--out-docs", docs, "--out-truth", truth])
        with open(docs, "rb") as d, open(truth, "rb") as t:
            return d.read(), t.read(), err.getvalue()


def parse(raw: bytes) -> list[dict]:
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]


def changed_share(orig: str, copy: str) -> float:
    """Share of the original's words that no longer match, after aligning the word lists."""
    a, b = orig.split(), copy.split()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return 1 - sum(m.size for m in sm.get_matching_blocks()) / len(a)


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
            self.assertIn(t["kind"], ("original",) + gen_corpus.KINDS)
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
        for kind in gen_corpus.KINDS:
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
        readme = open(os.path.join(ROOT, "examples", "README.md"), encoding="utf-8").read()
        self.assertIn(self.stats.strip(), readme, "regenerate the counts in examples/README.md")

    def test_examples_are_current(self):
        for name, raw in (("docs.ndjson", self.raw_docs), ("truth.ndjson", self.raw_truth)):
            with open(os.path.join(ROOT, "examples", name), "rb") as f:
                self.assertEqual(f.read(), raw, f"examples/{name} is stale: rerun the command in examples/README.md")


class Determinism(unittest.TestCase):
    def test_same_seed_same_bytes_via_cli(self):
        outs = []
        for _ in range(2):
            with tempfile.TemporaryDirectory() as tmp:
                docs, truth = os.path.join(tmp, "d.ndjson"), os.path.join(tmp, "t.ndjson")
                env = dict(os.environ, PYTHONHASHSEED="random")  # hash randomisation must not matter
                subprocess.run([sys.executable, SCRIPT, "--docs", "400", "--seed", "11", "--out-docs", docs,
                                "--out-truth", truth], check=True, env=env)
                with open(docs, "rb") as d, open(truth, "rb") as t:
                    outs.append((d.read(), t.read()))
        self.assertEqual(outs[0], outs[1])

    def test_other_seed_differs(self):
        a, _, _ = run("--docs", "100", "--seed", "1")
        b, _, _ = run("--docs", "100", "--seed", "2")
        self.assertNotEqual(a, b)

    def test_stdout_output(self):
        out = subprocess.run([sys.executable, SCRIPT, "--docs", "30", "--seed", "5"], check=True,
                             capture_output=True).stdout
        self.assertEqual(out, run("--docs", "30", "--seed", "5")[0])


class Noise(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raw_docs, raw_truth, _ = run("--docs", "3000", "--seed", "21")
        cls.docs = {d["id"]: d for d in parse(raw_docs)}
        cls.truth = parse(raw_truth)

    def test_levels_are_from_the_set(self):
        levels = {t["noise"] for t in self.truth}
        self.assertLessEqual(levels, {0.0, *gen_corpus.NOISE_LEVELS})
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
        rng = gen_corpus.Random(1)
        text = " ".join(f"Rechnungsnummer{i} Zählerstand" for i in range(100))
        noisy = gen_corpus.ocr_noise(text, 0.05, rng)
        self.assertNotEqual(noisy, text)
        self.assertAlmostEqual(changed_share(text, noisy), 0.05, delta=0.02)


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


class Vocabulary(unittest.TestCase):
    def test_free_text_word_banks_are_large(self):
        rng = gen_corpus.Random(2)
        for lang in gen_corpus.LANGS:
            words = set()
            for _ in range(3000):
                words.update(w.strip(".,").lower() for w in gen_corpus.sentence(rng, lang).split())
            self.assertGreater(len(words), 400, lang)


class Scale(unittest.TestCase):
    def test_twenty_thousand_documents(self):
        ids, kinds, clusters_ok = 0, Counter(), True
        originals = set()
        for d in gen_corpus.generate(20000, 99):
            ids += 1
            self.assertEqual(d["id"], ids)
            kinds[d["kind"]] += 1
            if d["kind"] == "original":
                originals.add(d["id"])
            else:
                clusters_ok &= d["cluster"] in originals
        self.assertEqual(ids, 20000)
        self.assertTrue(clusters_ok)
        self.assertEqual(set(kinds), {"original", *gen_corpus.KINDS})


if __name__ == "__main__":
    unittest.main()
