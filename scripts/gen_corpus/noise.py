"""OCR noise: damage a share of a text's words the way a scanner's OCR does."""

from __future__ import annotations

import re
from random import Random

from .words import pick, rint


NOISE_LEVELS = (0.01, 0.03, 0.05, 0.10)
NOISE_WEIGHTS = (0.30, 0.30, 0.25, 0.15)
# Classic OCR confusions, tried in random order on a word picked for noise.
CONFUSIONS = (("rn", "m"), ("m", "rn"), ("l", "1"), ("1", "l"), ("O", "0"), ("0", "O"), ("I", "l"),
              ("l", "I"), ("e", "c"), ("c", "e"), ("ä", "a"), ("ü", "u"), ("ö", "o"), ("ß", "B"),
              ("Ä", "A"), ("Ü", "U"), ("Ö", "O"), ("h", "b"), ("S", "5"), ("5", "S"), ("B", "8"),
              ("d", "cl"), ("w", "vv"), ("t", "f"), ("a", "o"), (",", "."), (".", ","), ("n", "ri"))
GARBAGE = "~^|°¬`'»«•_;"
WS_SPLIT = re.compile(r"(\s+)")


def confuse(word: str, rng: Random) -> str:
    cands = [c for c in CONFUSIONS if c[0] in word]
    if not cands:
        return word
    a, b = pick(rng, cands)
    starts = [i for i in range(len(word)) if word.startswith(a, i)]
    i = pick(rng, starts)
    return word[:i] + b + word[i + len(a):]


def corrupt(parts: list[str], i: int, rng: Random) -> None:
    """Damage word parts[i] in one OCR-like way; neighbours are separators."""
    w = parts[i]
    r = rng.random()
    if r < 0.45:
        c = confuse(w, rng)
        if c != w:
            parts[i] = c
            return
    elif r < 0.57:  # dropped word, with one adjoining separator
        parts[i] = ""
        if i > 0 and "\n" not in parts[i - 1]:
            parts[i - 1] = ""
        elif i + 1 < len(parts):
            parts[i + 1] = ""
        return
    elif r < 0.69 and len(w) >= 4:  # split word: "Rech nung"
        k = rint(rng, 1, len(w) - 1)
        parts[i] = w[:k] + " " + w[k:]
        return
    elif r < 0.77 and i + 1 < len(parts) - 1 and parts[i + 1] == " ":  # merged with the next word
        parts[i + 1] = ""
        return
    elif r < 0.87 and len(w) >= 6:  # hyphenated at a line end: "Rech-\nnung"
        k = rint(rng, 2, len(w) - 3)
        parts[i] = w[:k] + "-\n" + w[k:]
        return
    k = rint(rng, 0, len(w))  # garbage character
    parts[i] = w[:k] + pick(rng, GARBAGE) + w[k + (1 if k < len(w) and rng.random() < 0.5 else 0):]


def ocr_noise(text: str, level: float, rng: Random) -> str:
    """Affect round(level * words) distinct words (at least one)."""
    parts = WS_SPLIT.split(text)
    words = [i for i in range(0, len(parts), 2) if parts[i]]
    k = min(len(words), max(1, round(level * len(words))))
    for i in sorted(rng.sample(words, k)):
        corrupt(parts, i, rng)
    return "".join(parts)
