"""The archive being generated: households, families, originals and their copies.

One Archive owns the Random; every document is drawn from it in id order."""

from __future__ import annotations

import bisect
import datetime as dt
from random import Random

from .contracts import build_contract
from .formatting import add_days, iban_de, slugify
from .kinds import (add_page, add_stamp, applicable, COPIES_PER_GROUP, COPIES_WEIGHTS, cover_page, KIND_WEIGHTS, KINDS,
                    MEAN_COPIES, remove_page, reorder_header)
from .letters import build_letter, CIRCULAR_SENDERS, letter_body
from .manuals import build_manual
from .near import make_near, near_kind
from .noise import NOISE_LEVELS, NOISE_WEIGHTS, ocr_noise
from .people import city_line, FIRST_F, FIRST_M, full_name, LAST, person, street_line
from .templates import TEMPLATES
from .templates.family import Family, FAMILY_SUFFIX, make_vendor
from .templates.invoice import INVOICE_TRADE_BY_PATTERN
from .templates.receipt import RECEIPT_SHOP_BY_PATTERN
from .words import LANGS, pick, rint


CATEGORIES = ("utility", "telecom", "payslip", "bank", "insurance", "invoice", "receipt", "tax", "terms",
              "letter", "contract", "manual")
CATEGORY_WEIGHTS = (0.09, 0.07, 0.08, 0.08, 0.05, 0.07, 0.06, 0.03, 0.05, 0.25, 0.10, 0.07)
CATEGORY_CUM = [sum(CATEGORY_WEIGHTS[:i + 1]) for i in range(len(CATEGORY_WEIGHTS))]
START = dt.datetime(2019, 1, 2, 7, 0, 0)
SPAN_SECONDS = 6 * 365 * 86400             # documents are added over six years
# Paperless metadata per category: document type (German, English) and the tags an owner gives.
DOC_TYPES = {
    "utility": ("Rechnung", "Bill"), "telecom": ("Rechnung", "Bill"),
    "payslip": ("Gehaltsabrechnung", "Payslip"), "bank": ("Kontoauszug", "Bank Statement"),
    "insurance": ("Versicherung", "Insurance"), "invoice": ("Rechnung", "Invoice"),
    "receipt": ("Kassenbon", "Receipt"), "tax": ("Bescheid", "Tax Notice"),
    "terms": ("AGB", "Terms"), "letter": ("Brief", "Letter"), "contract": ("Vertrag", "Contract"),
    "manual": ("Anleitung", "Manual"),
}
TAGS = {
    "de": {"utility": ("Haus", "Strom", "Nebenkosten"), "telecom": ("Telefon", "Internet"),
           "payslip": ("Arbeit", "Gehalt"), "bank": ("Bank", "Finanzen"),
           "insurance": ("Versicherung",), "invoice": ("Haus", "Garantie", "Handwerker"),
           "receipt": ("Einkauf", "Garantie"), "tax": ("Steuer", "Finanzamt"),
           "terms": ("Verträge",), "letter": ("Post", "Schule", "Wohnung"),
           "contract": ("Verträge", "wichtig"), "manual": ("Garantie", "Geräte")},
    "en": {"utility": ("house", "utilities"), "telecom": ("phone", "internet"),
           "payslip": ("work", "salary"), "bank": ("bank", "finance"),
           "insurance": ("insurance",), "invoice": ("house", "warranty", "repairs"),
           "receipt": ("shopping", "warranty"), "tax": ("tax",),
           "terms": ("contracts",), "letter": ("mail", "school", "apartment"),
           "contract": ("contracts", "important"), "manual": ("warranty", "appliances")},
}
COMMON_TAGS = {"de": ("wichtig", "erledigt", "Steuer {year}", "Archiv"),
               "en": ("important", "done", "tax {year}", "archive")}


def make_household(rng: Random, lang: str) -> dict:
    last = pick(rng, LAST[lang])
    a = person(rng, lang, last)
    b = person(rng, lang, last)
    b["female"] = not a["female"]
    b["first"] = pick(rng, FIRST_F[lang] if b["female"] else FIRST_M[lang])
    return dict(members=[a, b], street=street_line(rng, lang), city=city_line(rng, lang), iban=iban_de(rng))


class Pool:
    """Families of one (category, language); popular ones get more documents (Zipf)."""

    def __init__(self, size: int):
        acc, self.cum = 0.0, []
        for i in range(size):
            acc += 1.0 / (i + 1) ** 0.8
            self.cum.append(acc)
        self.families: dict[int, Family] = {}

    def pick(self, rng: Random) -> int:
        return min(len(self.cum) - 1, bisect.bisect(self.cum, rng.random() * self.cum[-1]))


class Archive:
    def __init__(self, n_docs: int, seed: int, dup_rate: float, max_noise: float, text_noise: bool = True,
                 near_share: float = 0.0):
        self.seed = seed
        self.near_share = near_share  # 0: no near-negative, and none of their draws
        self.text_noise = text_noise  # False: copies keep clean text (scripts/ocr_corpus.py scans them)
        self.rng = Random(seed)
        self.dup_rate = dup_rate
        self.levels = [l for l in NOISE_LEVELS if l <= max_noise + 1e-9]
        self.level_weights = NOISE_WEIGHTS[:len(self.levels)]
        self.clock = START
        self.mean_step = SPAN_SECONDS / max(1, n_docs)
        self.asn = 0
        self.households = {lang: make_household(self.rng, lang) for lang in LANGS}
        est_originals = n_docs / (1 + dup_rate * MEAN_COPIES)
        self.pools = {}
        for cat, w in zip(CATEGORIES, CATEGORY_WEIGHTS):
            if cat in TEMPLATES:
                expected = est_originals * w / len(LANGS)
                per_family = min(40.0, max(4.0, expected ** 0.5))
                for lang in LANGS:
                    self.pools[(cat, lang)] = Pool(max(2, min(5000, round(expected / per_family))))
        self.family_names: set[str] = set()
        self.letter_families = 0
        self.open_circulars: list[dict] = []
        self.kind_todo = list(KINDS)            # every kind is planted early, even in tiny corpora
        self.rng.shuffle(self.kind_todo)

    # -- time and numbers --------------------------------------------------------
    def tick(self) -> dt.datetime:
        self.clock += dt.timedelta(seconds=1 + int(self.rng.expovariate(1.0 / self.mean_step)))
        return self.clock

    def next_asn(self) -> int:
        self.asn += rint(self.rng, 1, 3)
        return self.asn

    def created_for(self, added: dt.datetime) -> dt.date:
        r = self.rng.random()
        back = rint(self.rng, 0, 21) if r < 0.7 else rint(self.rng, 22, 180) if r < 0.9 \
            else rint(self.rng, 181, 2500)
        return added.date() - dt.timedelta(days=back)

    # -- families ------------------------------------------------------------------
    def family(self, cat: str, lang: str) -> Family:
        pool = self.pools[(cat, lang)]
        idx = pool.pick(self.rng)
        fam = pool.families.get(idx)
        if fam is None:
            frng = Random(f"{self.seed}:{cat}:{lang}:{idx}")
            vendor, town, pattern = make_vendor(cat, lang, frng)
            base = f"terms-{slugify(vendor)}" if cat == "terms" else f"{slugify(vendor)}-{FAMILY_SUFFIX[cat]}"
            name = base if base not in self.family_names else f"{base}-{lang}{idx}"
            self.family_names.add(name)
            customer = frng.choice(self.households[lang]["members"])
            fam = Family(name, cat, lang, vendor, town, customer)
            if cat == "invoice":  # what a vendor sells follows from its name pattern
                fam.fixed["trade"] = INVOICE_TRADE_BY_PATTERN[lang][pattern]
            elif cat == "receipt":
                fam.fixed["shop"] = RECEIPT_SHOP_BY_PATTERN[lang][pattern]
            TEMPLATES[cat][0](self, fam, frng)
            pool.families[idx] = fam
        return fam

    def tags(self, cat: str, lang: str, created: dt.date) -> list[str]:
        rng = self.rng
        tags = rng.sample(TAGS[lang][cat], rint(rng, 0, min(2, len(TAGS[lang][cat]))))
        if rng.random() < 0.3:
            tags.append(pick(rng, COMMON_TAGS[lang]).format(year=created.year))
        return tags

    # -- originals -------------------------------------------------------------------
    def make_original(self, doc_id: int) -> dict:
        rng = self.rng
        added = self.tick()
        created = self.created_for(added)
        cat = CATEGORIES[min(len(CATEGORIES) - 1, bisect.bisect(CATEGORY_CUM, rng.random() * CATEGORY_CUM[-1]))]
        lang = pick(rng, LANGS)
        family = corr = fam = None
        if cat in TEMPLATES:
            fam = self.family(cat, lang)
            fam.count += 1
            lines, title, file = TEMPLATES[cat][1](self, fam, rng, created)
            family, corr = fam.name, fam.vendor
        elif cat == "letter":
            lang, lines, title, file, corr, family, created = self.letter(lang, created)
        elif cat == "contract":
            lines, title, file = build_contract(self, rng, lang, pick(rng, self.households[lang]["members"]), created)
        else:
            lines, title, file, corr = build_manual(self, rng, lang, created)
        content = "\n".join(lines)
        words = len(content.split())
        return dict(id=doc_id, cluster=doc_id, kind="original", noise=0.0, family=family, cat=cat, lang=lang, _fam=fam,
                    title=title, content=content, created=created, added=added,
                    modified=self.modified(added), correspondent=corr if rng.random() < 0.85 else None,
                    document_type=DOC_TYPES[cat][LANGS.index(lang)] if rng.random() < 0.9 else None,
                    tags=self.tags(cat, lang, created),
                    asn=self.next_asn() if rng.random() < 0.45 else None, file=file,
                    pages=max(1, -(-words // 330)), words=words)

    def plan_near(self, orig: dict) -> str | None:
        """Whether the original gets a near-negative (near.py), and which; an original without a
        family gets one, so that the pair counts as a hard negative. Draws nothing at share 0."""
        if self.near_share <= 0:
            return None
        kind = near_kind(self, orig)
        if kind is None or self.rng.random() >= self.near_share:
            return None
        if orig["family"] is None:
            if orig["cat"] == "letter":
                self.letter_families += 1
                orig["family"] = f"letter-{self.letter_families}"
            else:
                orig["family"] = f"{orig['cat']}-{orig['id']}"
        return kind

    def make_near_negative(self, orig: dict, kind: str, doc_id: int) -> dict:
        """A new paper (its own cluster) of the original's family that differs only as `kind` says."""
        added = self.tick()
        doc = dict(orig, id=doc_id, cluster=doc_id, kind="original", noise=0.0, added=added,
                   modified=self.modified(added), near=kind, near_of=orig["cluster"],
                   asn=self.next_asn() if self.rng.random() < 0.45 else None)
        doc.update(make_near(self, self.rng, orig, kind))
        doc["words"] = len(doc["content"].split())
        return doc

    def letter(self, lang: str, created: dt.date):
        """A free-form letter; some go to several people ("same letter to two people")."""
        rng = self.rng
        if self.open_circulars and rng.random() < 0.5:
            circ = self.open_circulars[0]
            recipient = circ["recipients"].pop(0)
            if not circ["recipients"]:
                self.open_circulars.pop(0)
            lang, body, created, family = circ["lang"], circ["body"], circ["created"], circ["family"]
        else:
            body = letter_body(self, rng, lang)
            members = self.households[lang]["members"]
            recipient = pick(rng, members)
            family = None
            if body["cat"] in CIRCULAR_SENDERS and rng.random() < 0.35:
                self.letter_families += 1
                family = f"letter-{self.letter_families}"
                others = [m for m in members if m is not recipient] + \
                    [person(rng, lang) for _ in range(2)]
                self.open_circulars.append(dict(lang=lang, body=body, created=created, family=family,
                                                recipients=others[:rint(rng, 1, 2)]))
        lines, subject = build_letter(self, rng, lang, body, recipient, created)
        title = subject if rng.random() < 0.7 else f"{body['sender']} {created:%Y-%m-%d}"
        file = pick(rng, (f"{slugify(subject)[:40]}.pdf", f"Brief_{created:%Y%m%d}.pdf" if lang == "de"
                           else f"letter_{created:%Y%m%d}.pdf", f"scan_{created:%Y%m%d}_{rint(rng, 0, 9999):04d}.pdf"))
        return lang, lines, title, file, body["sender"], family, created

    def modified(self, added: dt.datetime) -> dt.datetime:
        if self.rng.random() < 0.5:
            return added
        return added + dt.timedelta(seconds=rint(self.rng, 5, 90 * 86400))

    # -- copies ----------------------------------------------------------------------
    def plan_copies(self, orig: dict, budget: int) -> list[str]:
        rng = self.rng
        if budget <= 0 or rng.random() >= self.dup_rate:
            return []
        n = min(budget, rng.choices(COPIES_PER_GROUP, COPIES_WEIGHTS)[0])
        return [self.pick_kind(orig) for _ in range(n)]

    def pick_kind(self, orig: dict) -> str:
        for i, kind in enumerate(self.kind_todo):
            if applicable(kind, orig, self.levels):
                return self.kind_todo.pop(i)
        while True:
            kind = self.rng.choices(KINDS, KIND_WEIGHTS)[0]
            if applicable(kind, orig, self.levels):
                return kind

    def make_copy(self, orig: dict, kind: str, doc_id: int) -> dict:
        rng, lang = self.rng, orig["lang"]
        added = self.tick()
        content, pages = orig["content"], orig["pages"]
        if kind == "page-added":
            content, pages = add_page(rng, content, lang), pages + 1
        elif kind == "page-removed":
            content, pages = remove_page(rng, content), max(1, pages - 1)
        elif kind == "stamp":
            content = add_stamp(rng, content, lang, add_days(orig["created"], rint(rng, 1, 20)))
        elif kind == "cover-page":
            hh = self.households[lang]["members"][0]
            content = cover_page(rng, lang, orig["correspondent"] or full_name(person(rng, lang)), full_name(hh),
                                 orig["title"], added.date(), pages) + "\n\n" + content
            pages += 1
        elif kind == "header-reordered":
            content = reorder_header(rng, content)
        noise = 0.0
        if kind == "rescan" or (kind != "reupload" and self.levels and rng.random() < 0.3):
            noise = rng.choices(self.levels, self.level_weights)[0]
            if self.text_noise:
                content = ocr_noise(content, noise, rng)
        doc = dict(orig, id=doc_id, kind=kind, noise=noise, content=content, added=added,
                   modified=self.modified(added), pages=pages, words=len(content.split()))
        self.copy_metadata(doc, orig, kind, added)
        return doc

    def copy_metadata(self, doc: dict, orig: dict, kind: str, added: dt.datetime) -> None:
        """A rescan is filed later and usually gets less care: fewer tags, generic names."""
        rng = self.rng
        scan_name = pick(rng, (f"scan_{added:%Y%m%d%H%M%S}.pdf", f"SCN_{added:%Y%m%d_%H%M}.pdf",
                                f"doc{rint(rng, 10000, 99999)}{added:%Y%m%d%H%M%S}.pdf",
                                f"Scan {added:%Y-%m-%d %H.%M.%S}.pdf", f"IMG_{rint(rng, 1000, 9999)}.pdf"))
        if kind == "reupload":
            r = rng.random()
            doc["title"] = orig["title"] if r < 0.6 else f"{orig['title']} ({rint(rng, 1, 3)})" if r < 0.8 \
                else orig["title"].lower()
            doc["file"] = orig["file"] if rng.random() < 0.5 else \
                orig["file"].replace(".pdf", f" ({rint(rng, 1, 3)}).pdf")
            keep_meta = 0.85
        else:
            r = rng.random()
            doc["title"] = orig["title"] if r < 0.4 else scan_name.rsplit(".", 1)[0] if r < 0.75 else \
                f"{orig['title']} {'Kopie' if orig['lang'] == 'de' else 'copy'}" if r < 0.88 else orig["title"].upper()
            doc["file"] = scan_name
            keep_meta = 0.5
        doc["correspondent"] = orig["correspondent"] if rng.random() < keep_meta else None
        doc["document_type"] = orig["document_type"] if rng.random() < keep_meta + 0.1 else None
        r = rng.random()
        doc["tags"] = [] if r < 0.45 else list(orig["tags"]) if r < 0.8 else \
            (["Posteingang"] if orig["lang"] == "de" else ["inbox"])
        doc["asn"] = self.next_asn() if rng.random() < 0.25 else None
        if rng.random() < 0.12:  # date not recognised: Paperless falls back to the scan date
            doc["created"] = added.date()
