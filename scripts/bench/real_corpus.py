#!/usr/bin/env python3
"""A real-text corpus from what a Debian machine already holds: man pages, /usr/share/doc
files and licences, as docs NDJSON ({"id", "title", "content"}) for the benchmark.

Real text is what a generator cannot fake: man pages of one package family that differ in a
command name, licences copied into many packages, changelogs that share most of their
history. No network; the same files give the same bytes (paths sorted, ids in that order).
Which files there are depends on the packages installed, so the corpus says so in its title
lines and the benchmark prints its size.

    python3 scripts/bench/real_corpus.py --out work/bench/real/docs.ndjson
"""
import argparse
import gzip
import json
import os
import sys

ROOTS = ("/usr/share/man", "/usr/share/doc", "/usr/share/common-licenses")
MAX_BYTES = 1 << 20  # a larger file is left out: the benchmark is about many documents
MIN_CHARS = 40


def files(roots):
    """Regular files under the roots (links not followed), sorted by path."""
    out = []
    for root in roots:
        for d, dirs, names in os.walk(root):
            dirs.sort()
            for n in names:
                p = os.path.join(d, n)
                if os.path.isfile(p) and not os.path.islink(p):
                    out.append(p)
    return sorted(out)


def text_of(path):
    """The file's text (gzip unpacked), or None for binary, empty or too large files."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if len(raw) > MAX_BYTES or b"\0" in raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    return text if len(text.strip()) >= MIN_CHARS else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="docs NDJSON to write")
    ap.add_argument("--roots", nargs="*", default=list(ROOTS), help="folders to read")
    a = ap.parse_args(argv)
    n = 0
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        for p in files(a.roots):
            t = text_of(p)
            if t is None:
                continue
            n += 1
            out.write(json.dumps({"id": n, "title": p, "content": t}, ensure_ascii=False) + "\n")
    os.replace(tmp, a.out)
    print(f"real_corpus: {n} documents from {', '.join(a.roots)}", file=sys.stderr)


if __name__ == "__main__":
    main()
