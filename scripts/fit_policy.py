#!/usr/bin/env python3
"""make fit: the match probability's weights (crates/pl-core/src/scorer/policy.json), fitted on
labelled corpora.

usage: scripts/fit_policy.py --work DIR --bin DIR --out FILE [--docs 10000] [--seed 7]

The corpora fitted on: a generated one (another seed than `make quality`'s, with near-negatives:
the letter to the other household member, last month's statement, another edition) and the
real-OCR fixtures examples/ocr, examples/ocr-hard and examples/ocr-near (the last with the same
kinds of near-negatives, read by Tesseract). examples/ocr-holdout is never read here.
Each corpus runs the default pipeline to its candidates (make), then pl-score --explain with
--threshold 0 over every candidate: the pairs the verdict keeps are the sample, each with
the findings pl-score computed (`computation.probability.terms[].value`), labelled by the
corpus's truth. So the features are defined once, in Rust, and read here.

The model is a logistic regression (log-odds = prior + Σ weight × finding) with a small L2
penalty, each corpus weighing the same in the loss, and each weight held to the sign its
finding can only have (a number agreeing never counts against a pair, a conflict never for it):
the weights read as evidence, and a corpus with few examples of a finding cannot flip its
meaning. Solved by L-BFGS-B from zero: deterministic for the same inputs.
"""
import argparse
import json
import os
import subprocess
import sys

# Sign each finding's weight must have (+1 ≥ 0, -1 ≤ 0, 0 free).
SIGNS = {
    "similarity": 1, "conflict_weight": -1, "clean": 0, "rescued": 0, "by_numbers": 0,
    "numbers_agree": 1, "numbers_agree_wide": 1, "numbers_against": -1, "words_against": -1,
    "damage": 0, "garbled_share": 0, "matched_share": 1, "rare_word_subs": -1,
    "one_digit_subs": -1, "word_subs": -1, "digit_subs": -1, "inner_words": -1,
    "inner_numbers": -1, "inner_words_pristine": -1, "longest_replaced": -1,
    "longest_replaced_pristine": -1, "addressee_names": -1, "facing_words": -1,
}
L2 = 1e-4
TARGET_PRECISION = 0.995


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def corpora(a):
    """(name, docs, truth) of each corpus fitted on; the generated one made if missing."""
    gen = os.path.join(a.work, "corpus-generated")
    os.makedirs(gen, exist_ok=True)
    docs, truth = f"{gen}/docs.ndjson", f"{gen}/truth.ndjson"
    params, want = f"{gen}/corpus.params", f"{a.docs} {a.seed} 0.3\n"
    if not os.path.exists(truth) or not os.path.exists(params) or open(params).read() != want:
        run([sys.executable, "scripts/gen_corpus", "--docs", str(a.docs), "--seed", str(a.seed),
             "--near-negatives", "0.3", "--out-docs", docs, "--out-truth", truth])
        open(params, "w").write(want)
    return [("generated", docs, truth),
            ("ocr", "examples/ocr/docs.ndjson", "examples/ocr/truth.ndjson"),
            ("ocr-hard", "examples/ocr-hard/docs.ndjson", "examples/ocr-hard/truth.ndjson"),
            ("ocr-near", "examples/ocr-near/docs.ndjson", "examples/ocr-near/truth.ndjson")]


def explained(a, name, docs):
    """Every candidate of the corpus scored with --explain: the kept pairs' records."""
    work = os.path.join(a.work, name)
    run(["make", "--no-print-directory", "-s", f"{work}/cands.ndjson", f"WORK={work}",
         f"DOCS={docs}", f"BIN={a.bin}"])
    out = f"{work}/explained.ndjson"
    run([f"{a.bin}/pl-score", "-q", f"{work}/cands.ndjson", "--sigs", f"{work}/sigs.bin",
         "--norm", f"{work}/norm.ndjson", "--explain", "--threshold", "0", "-o", out])
    return [json.loads(line) for line in open(out)]


def sample(records, truth_path):
    truth = {}
    for line in open(truth_path):
        r = json.loads(line)
        truth[r["id"]] = r["cluster"]
    xs, ys, names = [], [], None
    for r in records:
        prob = (r.get("computation") or {}).get("probability")
        if r.get("apart") or not prob:
            continue
        names = names or [t["feature"] for t in prob["terms"]]
        xs.append([t["value"] for t in prob["terms"]])
        ys.append(truth[r["a"]] == truth[r["b"]])
    return names, xs, ys


def fit(parts, names):
    import numpy as np
    from scipy.optimize import minimize
    X = np.vstack([np.array(x, dtype=float) for x, _ in parts])
    y = np.concatenate([np.array(t, dtype=float) for _, t in parts])
    w = np.concatenate([np.full(len(t), len(y) / (len(parts) * len(t))) for _, t in parts])

    def loss(theta):
        z = theta[0] + X @ theta[1:]
        p = 1.0 / (1.0 + np.exp(-z))
        ll = np.sum(w * (np.logaddexp(0.0, z) - y * z)) / len(y)
        g = (w * (p - y)) / len(y)
        grad = np.concatenate([[g.sum()], X.T @ g]) + np.concatenate([[0.0], 2 * L2 * theta[1:]])
        return ll + L2 * np.sum(theta[1:] ** 2), grad

    bounds = [(None, None)] + [{1: (0, None), -1: (None, 0), 0: (None, None)}[SIGNS[n]] for n in names]
    res = minimize(loss, np.zeros(len(names) + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": 5000, "gtol": 1e-10, "ftol": 1e-14})
    return res.x


def probabilities(theta, xs):
    import numpy as np
    return 1.0 / (1.0 + np.exp(-(theta[0] + np.array(xs, dtype=float) @ theta[1:])))


def curve(p, y, t):
    kept = [yy for pp, yy in zip(p, y) if pp >= t]
    tp, total = sum(kept), sum(y)
    return (tp / len(kept) if kept else 1.0), (tp / total if total else 1.0)


def policy_table(policy):
    """docs/VERDICT.md's table of the policy (marker `policy`): the prior and each weight."""
    rows = ["| finding | weight (log-odds per unit) |", "|---|---|",
            f"| prior (every finding at 0) | {policy['prior']:.4f} |"]
    rows += [f"| `{w['feature']}` | {w['weight']:.4f} |" for w in policy["weights"]]
    return "\n".join(rows) + "\n"


def write_table(policy, work):
    """Splices policy_table into docs/VERDICT.md (never typed)."""
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "policy.md")
    with open(path, "w") as f:
        f.write(policy_table(policy))
    run([sys.executable, "scripts/splice.py", "docs/VERDICT.md", "policy", path])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--docs", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--table-only", action="store_true",
                    help="only splice --out's policy into docs/VERDICT.md's table")
    a = ap.parse_args()
    if a.table_only:
        write_table(json.load(open(a.out)), a.work)
        return
    parts, names, fitted = [], None, []
    listed = corpora(a)
    for name, docs, truth in listed:
        n, xs, ys = sample(explained(a, name, docs), truth)
        names = names or n
        if n != names or set(names) != set(SIGNS):
            sys.exit(f"fit_policy: {name}: pl-score weighs {n}, this script knows {sorted(SIGNS)}")
        parts.append((xs, ys))
        fitted.append(f"{name} ({len(ys)} kept pairs, {sum(ys)} copies)")
    theta = fit(parts, names)
    policy = {
        "fitted": "make fit (scripts/fit_policy.py) on " + ", ".join(fitted)
                  + f"; generated: --docs {a.docs} --seed {a.seed} --near-negatives 0.3",
        "prior": round(float(theta[0]), 4),
        "weights": [{"feature": n, "weight": round(float(v), 4) + 0.0} for n, v in zip(names, theta[1:])],
    }
    with open(a.out, "w") as f:
        json.dump(policy, f, indent=1)
        f.write("\n")
    write_table(policy, a.work)
    # What the dial does on the corpora fitted on, for the note and the docs.
    grid = [0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99]
    rounded = [policy["prior"]] + [w["weight"] for w in policy["weights"]]
    import numpy as np
    theta = np.array(rounded)
    print("precision and recall of the kept pairs (recall: of the copies the verifier keeps)")
    for (xs, ys), (name, _, _) in zip(parts, listed):
        p = probabilities(theta, xs)
        print(f"{name:10s} " + "  ".join("p≥%.2f P %.4f R %.4f" % ((t,) + curve(p, ys, t)) for t in grid))
    allx = [x for xs, _ in parts for x in xs]
    ally = [y for _, ys in parts for y in ys]
    p = probabilities(theta, allx)
    meets = [t / 100 for t in range(0, 100) if curve(p, ally, t / 100)[0] >= TARGET_PRECISION]
    print(f"union of the corpora: precision ≥ {TARGET_PRECISION} of kept pairs from p ≥ "
          + (f"{meets[0]:.2f} (recall {curve(p, ally, meets[0])[1]:.4f})" if meets else "no p"))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
