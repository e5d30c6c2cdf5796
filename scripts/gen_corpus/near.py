"""Near-negatives (--near-negatives): papers an archive really holds that are not copies of
another paper but differ from it in very little. Each is a new cluster of the original's family
(so quality counts it as a hard negative); the truth names its kind (`near`) and the cluster it
was made from (`near_of`).

* household:   the same letter to the other member of the household: same surname and address,
               only the addressee's first name and form of address (and the salutation's) differ;
* next-period: the same customer's statement of the month before (so the original is next
               month's statement of the near-negative, and the near-negative's date comes before
               it is added): every date a month earlier, the document number an earlier one, one
               to three amounts changed, the rest identical;
* edition:     another edition of terms or a contract: one section's text replaced, the rest
               identical.

Each is made from the original's text, so the differences are exactly the named ones."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from random import Random

from .contracts import CONTRACT, CONTRACT_KINDS, CONTRACT_PARTIES
from .formatting import MONTHS, num, wrap
from .people import addressee, salutation
from .prose import fill, unique_sentences
from .templates.terms import terms_clause, TERMS
from .words import pick, rint

NEAR_KINDS = ("household", "next-period", "edition")
NEXT_PERIOD_CATS = ("utility", "telecom", "bank")
EDITION_CATS = ("terms", "contract")


def near_kind(world, orig: dict) -> str | None:
    """Which near-negative the original can have, if any."""
    if orig["cat"] == "letter":
        return "household" if household_of(world, orig) else None
    if orig["cat"] in NEXT_PERIOD_CATS and AMOUNT[orig["lang"]].search(orig["content"]):
        return "next-period"
    if orig["cat"] in EDITION_CATS:
        return "edition"
    return None


def make_near(world, rng: Random, orig: dict, kind: str) -> dict:
    """The near-negative's content, title, file and created date (the rest is the caller's)."""
    if kind == "household":
        return dict(content=household_letter(world, orig), created=orig["created"], title=orig["title"],
                    file=orig["file"])
    if kind == "next-period":
        shift = NextPeriod(rng, orig["lang"], orig["content"])
        return dict(content=shift.content, created=month_before(orig["created"]),
                    title=shift.meta(orig["title"]), file=shift.meta(orig["file"]))
    return dict(content=edition(rng, orig), created=orig["created"], title=orig["title"], file=orig["file"])


# -- household letters -------------------------------------------------------------------------
def household_of(world, orig: dict) -> tuple[dict, dict] | None:
    """(recipient, the other member) when the letter is addressed to a member of the household."""
    lines = orig["content"].split("\n")
    members = world.households[orig["lang"]]["members"]
    for i, m in enumerate(members):
        if addressee(m, orig["lang"]) in lines:
            return m, members[1 - i]
    return None


def household_letter(world, orig: dict) -> str:
    lang = orig["lang"]
    recipient, other = household_of(world, orig)
    swap = {addressee(recipient, lang): addressee(other, lang), salutation(recipient, lang): salutation(other, lang)}
    return "\n".join(swap.get(line, line) for line in orig["content"].split("\n"))


# -- next month's statement --------------------------------------------------------------------
AMOUNT = {"de": re.compile(r"(?<![\d.,])-?\d{1,3}(?:\.\d{3})*,\d{2}(?![\d,])"),
          "en": re.compile(r"(?<![\d.,])-?\d{1,3}(?:,\d{3})*\.\d{2}(?![\d.])")}
DATE = {"de": re.compile(r"(?<![\d.])(\d{2})\.(\d{2})\.(\d{4})?(?![\d])"),
        "en": re.compile(r"(?<![\d/])(\d{2})/(\d{2})(?:/(\d{4}))?(?![\d/])")}
DOC_NO = re.compile(r"^((?:Rechnungsnummer|Invoice):? \S*?)(\d+)$|^(Kontoauszug Nr\. )(\d+)(?=/)", re.M)
ISO = re.compile(r"(?<!\d)(\d{4})(-?)(\d{2})(?:(-?)(\d{2}))?(?!\d)")


def prev_month(year: int, month: int) -> tuple[int, int]:
    return (year - 1, 12) if month == 1 else (year, month - 1)


def month_before(d: dt.date) -> dt.date:
    y, m = prev_month(d.year, d.month)
    return dt.date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def month_name_re(lang: str) -> re.Pattern:
    """'März 2024', 'March 2024', '5. März 2024', 'March 5, 2024'."""
    names = "|".join(MONTHS[lang])
    if lang == "de":
        return re.compile(rf"(?:(\d{{1,2}})\. )?({names}) (\d{{4}})")
    return re.compile(rf"({names})(?: (\d{{1,2}}),)? (\d{{4}})")


def is_ymd(digits: str) -> bool:
    """20240315: a date in a file name, not a number."""
    return len(digits) == 8 and 1990 <= int(digits[:4]) <= 2100 and 1 <= int(digits[4:6]) <= 12 \
        and 1 <= int(digits[6:]) <= 31


class NextPeriod:
    """The original's text a month earlier: dates, document number, one to three amounts."""

    def __init__(self, rng: Random, lang: str, text: str):
        self.rng, self.lang = rng, lang
        self.no_step = rint(rng, 1, 400)
        text = self.amounts(text)
        text = DOC_NO.sub(lambda m: m[1] + self.bump(m[2]) if m[1] else m[3] + str(int(m[4]) - 1), text)
        text = DATE[lang].sub(self.short_date, text)
        self.content = month_name_re(lang).sub(self.long_date, text)

    def amounts(self, text: str) -> str:
        found = list(AMOUNT[self.lang].finditer(text))
        chosen = sorted(self.rng.sample(range(len(found)), min(len(found), rint(self.rng, 1, 3))))
        out, at = [], 0
        for i in chosen:
            m = found[i]
            old = float(m[0].replace(".", "").replace(",", ".") if self.lang == "de" else m[0].replace(",", ""))
            new = old
            while num(new, self.lang) == num(old, self.lang):
                new = round(old * self.rng.uniform(0.8, 1.25) + self.rng.choice((-1, 1)) * 0.01, 2)
            out += [text[at:m.start()], num(new, self.lang)]
            at = m.end()
        return "".join(out) + text[at:]

    def bump(self, digits: str) -> str:
        """An earlier number (a later one when there is none)."""
        n = int(digits) - self.no_step if int(digits) > self.no_step else int(digits) + self.no_step
        return f"{n:0{len(digits)}d}"

    def short_date(self, m: re.Match) -> str:
        a, b, year = int(m[1]), int(m[2]), m[3]
        day, month = (a, b) if self.lang == "de" else (b, a)
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return m[0]
        d = month_before(dt.date(int(year) if year else 2000, month, min(day, 28)))
        d = d.replace(day=min(day, calendar.monthrange(d.year, d.month)[1]))
        head = f"{d.day:02d}.{d.month:02d}." if self.lang == "de" else f"{d.month:02d}/{d.day:02d}"
        tail = (f"{d.year}" if self.lang == "de" else f"/{d.year}") if year else ""
        return head + tail

    def long_date(self, m: re.Match) -> str:
        names = MONTHS[self.lang]
        if self.lang == "de":
            day, month, year = m[1], names.index(m[2]) + 1, int(m[3])
        else:
            day, month, year = m[2], names.index(m[1]) + 1, int(m[3])
        y, mo = prev_month(year, month)
        if day is None:
            return f"{names[mo - 1]} {y}"
        d = min(int(day), calendar.monthrange(y, mo)[1])
        return f"{d}. {names[mo - 1]} {y}" if self.lang == "de" else f"{names[mo - 1]} {d}, {y}"

    def meta(self, s: str) -> str:
        """A title or file name: its number and its dates (2024-03, 20240315) a month earlier."""
        s = re.sub(r"(?<!\d)(\d{5,})(?!\d)", lambda m: m[1] if is_ymd(m[1]) else self.bump(m[1]), s)
        s = re.sub(r"(?<!\d)(\d{3})-(\d{4})(?!\d)", lambda m: f"{max(1, int(m[1]) - 1):03d}-{m[2]}", s)  # 006-2019

        def iso(m: re.Match) -> str:
            y, mo = int(m[1]), int(m[3])
            if not 1 <= mo <= 12 or not 1990 <= y <= 2100:
                return m[0]
            y, mo = prev_month(y, mo)
            day = "" if m[5] is None else f"{m[4]}{min(int(m[5]), calendar.monthrange(y, mo)[1]):02d}"
            return f"{y}{m[2]}{mo:02d}{day}"
        return month_name_re(self.lang).sub(self.long_date, ISO.sub(iso, s))


# -- editions ----------------------------------------------------------------------------------
def edition(rng: Random, orig: dict) -> str:
    """One section (a heading and its text up to the next blank line) gets new text."""
    lang, blocks = orig["lang"], orig["content"].split("\n\n")
    if orig["cat"] == "terms":
        heads = TERMS[lang]
        make = lambda head: " ".join(terms_clause(rng, lang, t, orig["_fam"]) for t in
                                     rng.sample(heads[head], rng.randint(2, min(4, len(heads[head])))))
    else:
        k = next(i for i, kind in enumerate(CONTRACT_KINDS[lang]) if orig["content"].startswith(kind[0]))
        nom, dat = CONTRACT_PARTIES[lang][k]
        bank = dict(CONTRACT[lang], P=nom, P2=dat)
        heads = {h: None for h in CONTRACT_KINDS[lang][k][2]}
        make = lambda head: " ".join(unique_sentences(rng, rint(rng, 2, 5),
                                                      lambda: fill(rng, bank, pick(rng, bank["patterns"]), lang)))
    sections = [i for i, b in enumerate(blocks) if b.split("\n", 1)[0] in heads and "\n" in b]
    i = rng.choice(sections)
    head, old = blocks[i].split("\n", 1)
    new = old
    while new == old:
        new = "\n".join(wrap(make(head)))
    blocks[i] = f"{head}\n{new}"
    return "\n\n".join(blocks)
