"""Counts per kind, family and category for --stats."""

from __future__ import annotations

from collections import Counter

from .archive import CATEGORIES
from .kinds import KINDS


class Stats:
    def __init__(self):
        self.docs = 0
        self.kinds, self.noise, self.langs, self.cats = Counter(), Counter(), Counter(), Counter()
        self.group_sizes = Counter()   # cluster -> size, only for clusters with copies
        self.fam_docs, self.fam_clusters, self.fam_cat = Counter(), Counter(), {}
        self.short = 0
        self.words_min, self.words_max, self.words_sum = 10**9, 0, 0

    def add(self, d: dict) -> None:
        self.docs += 1
        self.kinds[d["kind"]] += 1
        self.noise[d["noise"]] += 1
        self.langs[d["lang"]] += 1
        w = d["words"]
        self.short += w < 20
        self.words_min, self.words_max = min(self.words_min, w), max(self.words_max, w)
        self.words_sum += w
        if d["kind"] == "original":
            self.cats[d["cat"]] += 1
        else:
            self.group_sizes[d["cluster"]] += 1
        if d["family"]:
            self.fam_docs[d["family"]] += 1
            self.fam_clusters[d["family"]] += d["kind"] == "original"
            self.fam_cat[d["family"]] = "letter" if d["family"].startswith("letter-") else d["cat"]

    def report(self) -> str:
        sizes = Counter(n + 1 for n in self.group_sizes.values())
        out = [f"documents: {self.docs}",
               f"originals: {self.kinds['original']}",
               f"duplicate groups: {len(self.group_sizes)} (sizes: "
               + ", ".join(f"{k}: {v}" for k, v in sorted(sizes.items())) + ")",
               f"copies: {self.docs - self.kinds['original']}",
               "copies by kind: " + ", ".join(f"{k}: {self.kinds[k]}" for k in KINDS),
               "noise levels: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.noise.items())),
               "languages: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.langs.items())),
               "originals by category: " + ", ".join(f"{c}: {self.cats[c]}" for c in CATEGORIES),
               f"words per document: min {self.words_min}, mean {self.words_sum // max(1, self.docs)}, "
               f"max {self.words_max}; under 20 words: {self.short}"]
        multi = [f for f, n in self.fam_clusters.items() if n >= 2]
        multi3 = [f for f, n in self.fam_clusters.items() if n >= 3 and self.fam_cat[f] != "letter"]
        out += [f"families: {len(self.fam_clusters)}; with >= 2 clusters: {len(multi)}",
                f"hard-negative documents (family with >= 2 clusters): {sum(self.fam_docs[f] for f in multi)}",
                f"template-family documents in families with >= 3 clusters: {sum(self.fam_docs[f] for f in multi3)}"
                f" (in {len(multi3)} families)"]
        per_cat = Counter()
        per_cat_fams = Counter()
        for f in multi:
            per_cat[self.fam_cat[f]] += self.fam_docs[f]
            per_cat_fams[self.fam_cat[f]] += 1
        out.append("hard negatives by family type: " + ", ".join(
            f"{c}: {per_cat[c]} docs/{per_cat_fams[c]} families" for c in CATEGORIES if per_cat_fams[c]))
        return "\n".join(out)
