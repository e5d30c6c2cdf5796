#!/usr/bin/env python3
"""One peer, end to end: normalized text (norm NDJSON) -> word 3-gram shingles -> MinHash K=256
-> LSH 32 bands x 8 rows -> candidate pairs, written as {"a":..,"b":..} NDJSON (a < b, sorted).

Same input for every tool: the `norm` field written by pl-normalize, documents with fewer than
MIN_WORDS words skipped (as pl-shingle --min-words does), shingles = 3 consecutive words joined
by one space (the strings pl-shingle hashes with xxh3).

    peers.py TOOL NORM_NDJSON OUT_NDJSON      TOOL: datasketch | rensa | gaoya
    peers.py rensa-kernel NORM_NDJSON          rensa's RMinHash.update alone, on prebuilt
                                               shingle lists: one TSV line for BENCH.md
"""
import json
import sys

NGRAM, PERMS, BANDS, ROWS, SEED, MIN_WORDS, THRESHOLD = 3, 256, 32, 8, 42, 20, 0.75


def docs(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("words", 0) >= MIN_WORDS:
                yield r["id"], r["norm"]


def shingles(text):
    w = text.split(" ")
    return {" ".join(w[i:i + NGRAM]) for i in range(len(w) - NGRAM + 1)}


def query_pairs(lsh, sigs):
    """Each document's LSH query as ordered pairs (datasketch's and rensa's indexes alike)."""
    for i, m in sigs:
        for j in lsh.query(m):
            if j != i:
                yield min(i, j), max(i, j)


def run_datasketch(path):
    from datasketch import MinHash, MinHashLSH
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=PERMS, params=(BANDS, ROWS))
    sigs = []
    with lsh.insertion_session() as session:
        for i, text in docs(path):
            m = MinHash(num_perm=PERMS, seed=SEED)
            m.update_batch([s.encode("utf-8") for s in shingles(text)])
            session.insert(i, m)
            sigs.append((i, m))
    yield from query_pairs(lsh, sigs)


def run_rensa(path):
    from rensa import RMinHash, RMinHashLSH
    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=PERMS, num_bands=BANDS)
    sigs = []
    for i, text in docs(path):
        m = RMinHash(num_perm=PERMS, seed=SEED)
        m.update(list(shingles(text)))
        lsh.insert(i, m)
        sigs.append((i, m))
    yield from query_pairs(lsh, sigs)


def run_gaoya(path):
    from gaoya.minhash import MinHashStringIndex
    index = MinHashStringIndex(hash_size=32, jaccard_threshold=THRESHOLD, num_bands=BANDS,
                               band_size=ROWS, analyzer="word", ngram_range=(NGRAM, NGRAM))
    ids, texts = [], []
    for i, text in docs(path):
        ids.append(i)
        texts.append(text)
    index.par_bulk_insert_docs(ids, texts)
    for i, found in zip(ids, index.par_bulk_query(texts)):
        for j in found:
            if j != i:
                yield min(i, j), max(i, j)


def rensa_kernel(path):
    """Times RMinHash(256, 42).update on each document's shingle strings, built beforehand
    (best of 3), and prints the line the kernels example prints for ours."""
    import time
    from rensa import RMinHash
    texts = [text for _, text in docs(path)]
    lists = [sorted(shingles(t)) for t in texts]
    size = sum(len(t.encode("utf-8")) for t in texts)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for sh in lists:
            m = RMinHash(num_perm=PERMS, seed=SEED)
            m.update(sh)
        best = min(best, time.perf_counter() - t0)
    print(f"rensa RMinHash.update K=256 from shingle strings\t1\t{best:.6f}\t{len(texts)}\t{size}")


def main():
    if sys.argv[1] == "rensa-kernel":
        rensa_kernel(sys.argv[2])
        return
    tool, norm, out = sys.argv[1:4]
    pairs = sorted(set({"datasketch": run_datasketch, "rensa": run_rensa,
                        "gaoya": run_gaoya}[tool](norm)))
    with open(out, "w") as f:
        for a, b in pairs:
            f.write('{"a":%d,"b":%d}\n' % (a, b))


if __name__ == "__main__":
    main()
