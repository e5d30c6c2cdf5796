"""Same arguments, same bytes: across runs, processes, entry points and text_noise."""

import os
import subprocess
import sys
import tempfile
import unittest

from gen_corpus import doc_json, generate, truth_json
from gen_corpus.tests.helpers import PACKAGE, SCRIPTS, run


class Determinism(unittest.TestCase):
    def test_same_seed_same_bytes_via_cli(self):
        outs = []
        for _ in range(2):
            with tempfile.TemporaryDirectory() as tmp:
                docs, truth = os.path.join(tmp, "d.ndjson"), os.path.join(tmp, "t.ndjson")
                env = dict(os.environ, PYTHONHASHSEED="random")  # hash randomisation must not matter
                subprocess.run([sys.executable, PACKAGE, "--docs", "400", "--seed", "11", "--out-docs", docs,
                                "--out-truth", truth], check=True, env=env)
                with open(docs, "rb") as d, open(truth, "rb") as t:
                    outs.append((d.read(), t.read()))
        self.assertEqual(outs[0], outs[1])

    def test_other_seed_differs(self):
        a, _, _ = run("--docs", "100", "--seed", "1")
        b, _, _ = run("--docs", "100", "--seed", "2")
        self.assertNotEqual(a, b)

    def test_stdout_output(self):
        out = subprocess.run([sys.executable, PACKAGE, "--docs", "30", "--seed", "5"], check=True,
                             capture_output=True).stdout
        self.assertEqual(out, run("--docs", "30", "--seed", "5")[0])

    def test_module_run_matches_folder_run(self):
        """`python3 -m gen_corpus` (scripts/ on the path) and `python3 scripts/gen_corpus` agree."""
        args = ["--docs", "60", "--seed", "8", "--dup-rate", "0.5"]
        folder = subprocess.run([sys.executable, PACKAGE, *args], check=True, capture_output=True).stdout
        module = subprocess.run([sys.executable, "-m", "gen_corpus", *args], check=True, capture_output=True,
                                cwd=SCRIPTS).stdout
        self.assertEqual(folder, module)
        self.assertEqual(folder, run(*args)[0])

    def test_clean_text(self):
        """text_noise=False (scripts/ocr_corpus.py): repeatable, noise levels still drawn, text left clean."""
        args = (300, 2, 0.3, 0.05)
        docs = list(generate(*args, text_noise=False))
        again = generate(*args, text_noise=False)
        self.assertEqual([doc_json(d) + truth_json(d) for d in docs], [doc_json(d) + truth_json(d) for d in again])
        by_id = {d["id"]: d for d in docs}
        rescans = [d for d in docs if d["kind"] == "rescan"]
        self.assertGreater(len(rescans), 5)
        for d in rescans:  # a rescan changes nothing but the noise it is not given here
            self.assertGreater(d["noise"], 0)
            self.assertEqual(d["content"], by_id[d["cluster"]]["content"])
