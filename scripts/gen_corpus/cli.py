"""Command line: write the docs and truth streams for --docs and --seed."""

from __future__ import annotations

import argparse
import sys

from .output import doc_json, truth_json
from .stats import Stats
from .stream import generate


DESCRIPTION = "Generate a synthetic Paperless-NGX-like archive with planted near-duplicates."


def open_out(path: str | None):
    if path is None:
        return None
    if path == "-":
        return sys.stdout
    return open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gen_corpus", description=DESCRIPTION)
    ap.add_argument("--docs", type=int, required=True, help="total number of documents, copies included")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out-docs", default="-", help="documents NDJSON ('-' = stdout)")
    ap.add_argument("--out-truth", help="ground-truth NDJSON (omit to skip)")
    ap.add_argument("--dup-rate", type=float, default=0.3, help="fraction of originals that get copies")
    ap.add_argument("--max-noise", type=float, default=0.10, help="highest OCR noise level used")
    ap.add_argument("--near-negatives", type=float, default=0.0, metavar="SHARE",
                    help="share of letters, statements, terms and contracts that get a near-negative: the letter "
                         "to the other household member, the statement of the month before, another edition (default 0)")
    ap.add_argument("--stats", action="store_true", help="print counts per kind and family to stderr")
    args = ap.parse_args(argv)
    if args.docs < 1:
        ap.error("--docs must be at least 1")
    if not 0.0 <= args.dup_rate <= 1.0:
        ap.error("--dup-rate must be within [0, 1]")
    if not 0.0 <= args.near_negatives <= 1.0:
        ap.error("--near-negatives must be within [0, 1]")
    if args.out_docs == "-" and args.out_truth == "-":
        ap.error("only one output can go to stdout")
    docs_out, truth_out = open_out(args.out_docs), open_out(args.out_truth)
    stats = Stats() if args.stats else None
    try:
        for d in generate(args.docs, args.seed, args.dup_rate, args.max_noise,
                          near_negatives=args.near_negatives):
            docs_out.write(doc_json(d) + "\n")
            if truth_out:
                truth_out.write(truth_json(d) + "\n")
            if stats:
                stats.add(d)
    finally:
        for f in (docs_out, truth_out):
            if f and f is not sys.stdout:
                f.close()
    if stats:
        print(stats.report(), file=sys.stderr)
    return 0
