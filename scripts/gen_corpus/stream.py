"""Originals and their copies, interleaved in id order with bounded memory."""

from __future__ import annotations

import heapq

from .archive import Archive
from .words import rint


# A copy is emitted this many documents after its original at most; this keeps
# duplicates apart in id order while bounding how many originals are held back.
MAX_DELAY = 80


def generate(n_docs: int, seed: int, dup_rate: float = 0.3, max_noise: float = 0.10, text_noise: bool = True):
    """Yield documents in id order. Copies wait in a heap until their (random) due slot.
    text_noise=False leaves copies' text clean. It also skips the noise's own draws, so from
    the first noisy copy on the corpus differs from the text_noise=True one of the same seed."""
    arc = Archive(n_docs, seed, dup_rate, max_noise, text_noise)
    pending: list = []  # (due position, sequence, original, kind)
    seq = 0
    emitted = 0
    while emitted < n_docs:
        left = n_docs - emitted
        if pending and (pending[0][0] <= emitted or left <= len(pending)):
            _, _, orig, kind = heapq.heappop(pending)
            emitted += 1
            yield arc.make_copy(orig, kind, emitted)
            continue
        emitted += 1
        orig = arc.make_original(emitted)
        yield orig
        for kind in arc.plan_copies(orig, left - 1 - len(pending)):
            seq += 1
            heapq.heappush(pending, (emitted + rint(arc.rng, 0, MAX_DELAY), seq, orig, kind))
