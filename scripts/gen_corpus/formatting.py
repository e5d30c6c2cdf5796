"""Dates, numbers, money, IBANs, phone numbers and line breaks, printed the German or
the US way."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from random import Random

from .words import rint, word_bank


def slugify(text: str) -> str:
    text = text.lower()
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss"), ("&", "and")):
        text = text.replace(a, b)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))  # é -> e
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


MONTHS = {
    "de": word_bank("Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"),
    "en": word_bank("January|February|March|April|May|June|July|August|September|October|November|December"),
}
STAMP_MONTHS = {
    "de": word_bank("JAN|FEB|MRZ|APR|MAI|JUN|JUL|AUG|SEP|OKT|NOV|DEZ"),
    "en": word_bank("JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC"),
}


def d_short(d: dt.date, lang: str) -> str:
    if lang == "de":
        return f"{d.day:02d}.{d.month:02d}.{d.year}"
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


def d_long(d: dt.date, lang: str) -> str:
    if lang == "de":
        return f"{d.day}. {MONTHS['de'][d.month - 1]} {d.year}"
    return f"{MONTHS['en'][d.month - 1]} {d.day}, {d.year}"


def month_year(d: dt.date, lang: str) -> str:
    return f"{MONTHS[lang][d.month - 1]} {d.year}"


def num(x: float, lang: str, digits: int = 2) -> str:
    """1234.5 -> '1.234,50' (de) or '1,234.50' (en)."""
    s = f"{x:,.{digits}f}"
    if lang == "de":
        s = s.replace(",", "_").replace(".", ",").replace("_", ".")
    return s


def money(x: float, lang: str, cur: str = "EUR") -> str:
    if lang == "de":
        return f"{num(x, 'de')} {cur}"
    return ("-" if x < 0 else "") + f"${abs(x):,.2f}"


def iban_de(rng: Random) -> str:
    """A German IBAN with a valid mod-97 check number, printed in groups of four."""
    bban = f"{rng.randrange(10**7, 10**8)}{rng.randrange(10**9, 10**10)}"
    check = 98 - int(bban + "131400") % 97
    raw = f"DE{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def mask_iban(iban: str) -> str:
    raw = iban.replace(" ", "")
    raw = raw[:4] + "X" * (len(raw) - 8) + raw[-4:]
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def phone(rng: Random, lang: str, hotline: bool = False) -> str:
    if lang == "de":
        if hotline:
            return f"0800 {rint(rng, 100, 999)} {rint(rng, 1000, 9999)}"
        return f"0{rint(rng, 30, 9999)} {rint(rng, 100000, 9999999)}"
    if hotline:
        return f"1-800-{rint(rng, 200, 999)}-{rint(rng, 1000, 9999)}"
    return f"({rint(rng, 201, 989)}) {rint(rng, 200, 999)}-{rint(rng, 0, 9999):04d}"


def add_days(d: dt.date, n: int) -> dt.date:
    return d + dt.timedelta(days=n)


def wrap(text: str, width: int = 78) -> list[str]:
    """Greedy line breaking, cut per line rather than per word because it is hot."""
    out = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width + 1)
        if cut <= 0:
            cut = text.find(" ", width)
            if cut < 0:
                break
        out.append(text[:cut])
        text = text[cut + 1:]
    out.append(text)
    return out
