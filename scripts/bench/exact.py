#!/usr/bin/env python3
"""The exact baseline: every pair of documents whose word 3-gram sets have Jaccard >= T.

Exact, not sampled: an all-pairs similarity join with prefix and size filtering (Bayardo et
al., "Scaling up all pairs similarity search", 2007). Tokens are ordered rarest first; a pair
with J >= T must share a token within both prefixes, so every such pair is verified with a full
set intersection and none is missed. Same shingles and document filter as peers.py.

    exact.py NORM_NDJSON OUT_NDJSON [T]       writes {"a":..,"b":..,"jaccard":..}
"""
import math
import sys
from collections import Counter, defaultdict

from peers import docs, shingles


def main():
    norm, out = sys.argv[1:3]
    t = float(sys.argv[3]) if len(sys.argv) > 3 else 0.75
    sets = [(i, shingles(text)) for i, text in docs(norm)]
    freq = Counter(s for _, sh in sets for s in sh)
    rank = {s: r for r, (s, _) in enumerate(sorted(freq.items(), key=lambda kv: (kv[1], kv[0])))}
    recs = sorted(((len(sh), i, sorted(rank[s] for s in sh)) for i, sh in sets))
    index = defaultdict(list)  # token rank -> positions in recs
    pairs = []
    for pos, (n, i, toks) in enumerate(recs):
        if n == 0:
            continue
        prefix = n - math.ceil(t * n) + 1
        seen = set()
        mine = set(toks)
        for tok in toks[:prefix]:
            for q in index[tok]:
                if q in seen:
                    continue
                seen.add(q)
                m, j, other = recs[q]
                if m < t * n:  # size filter: recs are in ascending size, m <= n
                    continue
                inter = len(mine.intersection(other))
                jac = inter / (n + m - inter)
                if jac >= t:
                    pairs.append((min(i, j), max(i, j), jac))
        for tok in toks[:prefix]:
            index[tok].append(pos)
    pairs.sort()
    with open(out, "w") as f:
        for a, b, jac in pairs:
            f.write('{"a":%d,"b":%d,"jaccard":%.6f}\n' % (a, b, jac))


if __name__ == "__main__":
    main()
