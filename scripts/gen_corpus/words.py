"""Word banks and the seeded draws over them.

Every draw of the generator comes from one Random in a fixed order; that order is
what makes the output byte-identical for a seed, so helpers here never reorder or
skip draws."""

from __future__ import annotations

import string
from random import Random


LANGS = ("de", "en")
UPPER = string.ascii_uppercase


def word_bank(text: str) -> tuple[str, ...]:
    """A word bank written as '|'-separated or one-per-line entries."""
    sep = "\n" if "\n" in text.strip() else "|"
    return tuple(s.strip() for s in text.strip().split(sep) if s.strip())


def pick(rng: Random, seq):
    """rng.choice without its rejection sampling: several times faster, still seeded."""
    return seq[int(rng.random() * len(seq))]


def rint(rng: Random, a: int, b: int) -> int:
    """rng.randint(a, b), cheaper for the same reason as pick()."""
    return a + int(rng.random() * (b - a + 1))
