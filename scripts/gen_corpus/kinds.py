"""Kinds of copy (truth's `kind`): how a near-duplicate is made from its original."""

from __future__ import annotations

import datetime as dt
from random import Random

from .formatting import add_days, d_short, phone, STAMP_MONTHS, wrap
from .people import initials
from .prose import sentence
from .words import pick, rint, word_bank


KINDS = ("rescan", "reupload", "page-added", "page-removed", "stamp", "cover-page", "header-reordered")
KIND_WEIGHTS = (0.34, 0.14, 0.10, 0.10, 0.13, 0.08, 0.11)
COPIES_PER_GROUP = (1, 2, 3, 4)            # group sizes 2..5
COPIES_WEIGHTS = (0.55, 0.25, 0.12, 0.08)
MEAN_COPIES = sum(c * w for c, w in zip(COPIES_PER_GROUP, COPIES_WEIGHTS))


PAGE_HEADS = {"de": word_bank("Seite 2|Anlage|Allgemeine Hinweise|Ergänzende Informationen|Rückseite|Anhang"),
              "en": word_bank("Page 2|Enclosure|General Information|Additional Information|Reverse side|Appendix")}


def prose_block(rng: Random, lang: str, words: int) -> list[str]:
    """Wrapped prose of about `words` words, sentence by sentence."""
    lines, par, count = [], [], 0
    while count < words:
        s = sentence(rng, lang)
        par.append(s)
        count += s.count(" ") + 1
        if len(par) >= rint(rng, 2, 5):
            lines += (["" ] if lines else []) + wrap(" ".join(par))
            par = []
    if par:
        lines += ([""] if lines else []) + wrap(" ".join(par))
    return lines


def add_page(rng: Random, content: str, lang: str) -> str:
    target = max(6, round(len(content.split()) * rng.uniform(0.25, 0.40)))
    block = [pick(rng, PAGE_HEADS[lang])] + prose_block(rng, lang, target)
    return content + "\n\n" + "\n".join(block)


def remove_page(rng: Random, content: str) -> str:
    """Drop a trailing (usually) or leading block of lines holding 25-40% of the words."""
    lines = content.split("\n")
    total = sum(len(l.split()) for l in lines)
    target = total * rng.uniform(0.25, 0.40)
    from_end = rng.random() < 0.7
    removed = 0
    while removed < target and len(lines) > 1:
        n = len(lines[-1 if from_end else 0].split())
        if removed and removed + n > total / 2:  # never drop more than half
            break
        removed += n
        lines.pop(-1 if from_end else 0)
    return "\n".join(lines).strip("\n")


def stamp_text(rng: Random, lang: str, day: dt.date) -> str:
    ini = initials(rng, lang)
    if lang == "de":
        return pick(rng, (f"EINGEGANGEN {day.day}. {STAMP_MONTHS['de'][day.month - 1]} {day.year}",
                           f"Eingang: {d_short(day, 'de')}", f"bezahlt am {d_short(day, 'de')} {ini}",
                           f"Erledigt {day.day}.{day.month}. {ini}", f"Gebucht {day:%d.%m.%y} {ini}",
                           f"überwiesen {day.day}.{day.month}.", "KOPIE", "Zur Ablage",
                           f"Wiedervorlage {d_short(add_days(day, 30), 'de')}"))
    return pick(rng, (f"Paid {d_short(day, 'en')} {ini}", f"RECEIVED {STAMP_MONTHS['en'][day.month - 1]} "
                       f"{day.day:02d} {day.year}", f"Paid by check #{rint(rng, 1000, 9999)} on {day.month}/{day.day}",
                       f"Filed {day:%m/%d/%y}", "COPY", f"Entered {day.month}/{day.day} {ini}",
                       f"Follow up {d_short(add_days(day, 30), 'en')}"))


def add_stamp(rng: Random, content: str, lang: str, day: dt.date) -> str:
    lines = content.split("\n")
    r = rng.random()
    pos = 0 if r < 0.4 else (len(lines) if r < 0.7 else rint(rng, 1, min(4, len(lines))))
    lines.insert(pos, stamp_text(rng, lang, day))
    return "\n".join(lines)


def cover_page(rng: Random, lang: str, to: str, sender: str, subject: str, day: dt.date, pages: int) -> str:
    msg = " ".join(sentence(rng, lang) for _ in range(rint(rng, 1, 2)))
    if lang == "de":
        head = pick(rng, ("TELEFAX", "Fax-Deckblatt", "Begleitschreiben"))
        lines = [head, f"An: {to}", f"Fax: {phone(rng, lang)}", f"Von: {sender}", f"Datum: {d_short(day, lang)}",
                 f"Seiten inkl. Deckblatt: {pages + 1}", f"Betreff: {subject}", ""]
    else:
        head = pick(rng, ("FAX COVER SHEET", "Fax Transmittal", "Cover Letter"))
        lines = [head, f"To: {to}", f"Fax: {phone(rng, lang)}", f"From: {sender}", f"Date: {d_short(day, lang)}",
                 f"Pages (including cover): {pages + 1}", f"Re: {subject}", ""]
    return "\n".join(lines + wrap(msg))


def header_slots(lines: list[str]) -> list[int]:
    """Indices of the leading short non-empty lines (letterhead, title): at most five,
    ending at the first long line so that wrapped prose is never shuffled."""
    slots = []
    for i, line in enumerate(lines[:12]):
        if len(line) > 60:
            break
        if line.strip():
            slots.append(i)
            if len(slots) == 5:
                break
    return slots


def reorder_header(rng: Random, content: str) -> str:
    """Permute the first 2-5 header lines (OCR read the letterhead blocks in another order)."""
    lines = content.split("\n")
    slots = header_slots(lines)
    k = min(len(slots), rint(rng, 2, 5))
    while len({lines[i] for i in slots[:k]}) < 2 and k < len(slots):
        k += 1
    head = [lines[i] for i in slots[:k]]
    new = head[:]
    for _ in range(4):
        rng.shuffle(new)
        if new != head:
            break
    else:
        new = head[1:] + head[:1]  # a rotation always differs when two lines differ
    for i, line in zip(slots, new):
        lines[i] = line
    return "\n".join(lines)


def applicable(kind: str, orig: dict, levels: list) -> bool:
    if kind == "rescan":
        return bool(levels)
    if kind == "page-removed":
        return orig["words"] >= 40 and orig["content"].count("\n") >= 4
    if kind == "header-reordered":
        lines = orig["content"].split("\n", 12)
        return len({lines[i] for i in header_slots(lines)}) >= 2
    if kind == "cover-page":
        return orig["words"] >= 30  # a fax cover in front of a till receipt is not a thing
    return True
