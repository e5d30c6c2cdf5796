"""What the test modules share: running the generator in-process and reading its output."""

import contextlib
import difflib
import io
import json
import os
import tempfile

from gen_corpus import main

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.dirname(PACKAGE)
ROOT = os.path.dirname(SCRIPTS)


def run(*args: str) -> tuple[bytes, bytes, str]:
    """Run the generator in-process; return (docs bytes, truth bytes, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        docs, truth = os.path.join(tmp, "docs.ndjson"), os.path.join(tmp, "truth.ndjson")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            main([*args, "--out-docs", docs, "--out-truth", truth])
        with open(docs, "rb") as d, open(truth, "rb") as t:
            return d.read(), t.read(), err.getvalue()


def parse(raw: bytes) -> list[dict]:
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]


def changed_share(orig: str, copy: str) -> float:
    """Share of the original's words that no longer match, after aligning the word lists."""
    a, b = orig.split(), copy.split()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return 1 - sum(m.size for m in sm.get_matching_blocks()) / len(a)
