"""Originals and their copies, interleaved in id order with bounded memory."""

from __future__ import annotations

import heapq

from .archive import Archive
from .words import rint


# A copy is emitted this many documents after its original at most; this keeps
# duplicates apart in id order while bounding how many originals are held back.
MAX_DELAY = 80


def generate(n_docs: int, seed: int, dup_rate: float = 0.3, max_noise: float = 0.10, text_noise: bool = True,
             near_negatives: float = 0.0):
    """Yield documents in id order. Copies wait in a heap until their (random) due slot.
    text_noise=False leaves copies' text clean. It also skips the noise's own draws, so from
    the first noisy copy on the corpus differs from the text_noise=True one of the same seed.
    near_negatives: the share of originals that can have one (near.py) that get one; a
    near-negative waits like a copy, then is an original with copies of its own."""
    arc = Archive(n_docs, seed, dup_rate, max_noise, text_noise, near_negatives)
    pending: list = []  # (due position, sequence, original, kind); kind "near:<kind>" for a near-negative
    seq = 0
    emitted = 0
    papers: dict = {}  # an original's text -> its cluster (same_paper)
    while emitted < n_docs:
        left = n_docs - emitted
        if pending and (pending[0][0] <= emitted or left <= len(pending)):
            _, _, orig, kind = heapq.heappop(pending)
            emitted += 1
            if not kind.startswith("near:"):
                yield arc.make_copy(orig, kind, emitted)
                continue
            orig = same_paper(arc.make_near_negative(orig, kind[5:], emitted), papers)
            yield orig
        else:
            emitted += 1
            orig = same_paper(arc.make_original(emitted), papers)
            near = arc.plan_near(orig) if left - 1 - len(pending) > 0 else None
            yield orig
            if near:
                seq += 1
                heapq.heappush(pending, (emitted + rint(arc.rng, 1, MAX_DELAY), seq, orig, "near:" + near))
        for kind in arc.plan_copies(orig, n_docs - emitted - len(pending)):
            seq += 1
            heapq.heappush(pending, (emitted + rint(arc.rng, 0, MAX_DELAY), seq, orig, kind))


def same_paper(orig: dict, papers: dict) -> dict:
    """An original whose text another original already has is that paper again (the
    household letter made from a letter that went to both members is the other member's
    letter, word for word): it joins that cluster, and its copies with it. Draws nothing,
    so the documents are the same; only the truth differs."""
    cluster = papers.setdefault(orig["content"], orig["cluster"])
    if cluster != orig["cluster"]:
        orig["cluster"] = cluster
    return orig
