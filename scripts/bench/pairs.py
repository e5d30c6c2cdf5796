"""Candidate pairs as a cover of document pairs, for recall figures (report.py, quality.py).

pl-lsh writes one pair per copy of a copy set (documents with the same normalized text),
marked "copy": true, and bands only the set's lowest id; so a pair (x, y) is covered when x
and y are copies of each other, or when a copy of x and a copy of y form a candidate pair.
Peers' candidate files have no copy marks: there a pair is covered when it is listed.
"""
import json


def load_cover(path):
    """Returns covered(a, b) for the candidate NDJSON file at path."""
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    records = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            records.append((r["a"], r["b"]))
            if r.get("copy"):
                ra, rb = find(r["a"]), find(r["b"])
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    reps = {(min(find(a), find(b)), max(find(a), find(b))) for a, b in records}

    def covered(a, b):
        ra, rb = find(a), find(b)
        return ra == rb or (min(ra, rb), max(ra, rb)) in reps

    return covered


def recall(cands_path, exact_pairs):
    """The share of exact_pairs (a set of (a, b)) that the candidates cover."""
    if not exact_pairs:
        return float("nan")
    covered = load_cover(cands_path)
    return sum(1 for a, b in exact_pairs if covered(a, b)) / len(exact_pairs)
