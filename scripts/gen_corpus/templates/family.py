"""A template family: one vendor's recurring document for one customer.

All members share most of their words and differ in numbers, dates and a few lines.
Documents of one family in different clusters are the hard negatives a
deduplicator must keep apart. Here: the family itself and what its documents share
(letterhead, footer, numbering, names)."""

from __future__ import annotations

import datetime as dt
from random import Random

from ..formatting import iban_de, month_year, phone, slugify, wrap
from ..people import BRANDS, city_line, full_name, LAST, person, street_line, TOWNS
from ..words import rint, UPPER, word_bank
from .boilerplate import BOILER


class Family:
    __slots__ = ("name", "kind", "lang", "vendor", "town", "fixed", "state", "customer", "count")

    def __init__(self, name, kind, lang, vendor, town, customer):
        self.name, self.kind, self.lang = name, kind, lang
        self.vendor, self.town, self.customer = vendor, town, customer
        self.fixed: dict = {}
        self.state: dict = {}
        self.count = 0


VENDOR_PATTERNS = {
    ("utility", "de"): word_bank("Stadtwerke {town}|Energieversorgung {town} GmbH|{brand} Energie AG|"
                                 "Gemeindewerke {town}|{brand} Strom und Gas GmbH"),
    ("utility", "en"): word_bank("{town} Power & Light|{town} Electric Cooperative|{brand} Energy|"
                                 "{town} Gas & Electric|{town} Municipal Utilities"),
    ("telecom", "de"): word_bank("{brand}Net Kommunikation GmbH|{brand}fon Mobilfunk GmbH|"
                                 "{brand} Telekommunikation AG|{town}Kabel GmbH"),
    ("telecom", "en"): word_bank("{brand}Tel Wireless|{brand} Communications Inc.|{brand} Broadband|"
                                 "{town} Cable & Internet"),
    ("payslip", "de"): word_bank("{last} & {last2} GmbH|{brand} Logistik GmbH|{brand} Maschinenbau AG|"
                                 "Stadtverwaltung {town}|{brand} Software GmbH|Klinikum {town}|"
                                 "{last} Bau GmbH & Co. KG"),
    ("payslip", "en"): word_bank("{brand} Industries Inc.|{last} & {last2} LLP|{brand} Logistics LLC|"
                                 "City of {town}|{town} General Hospital|{brand} Software Corp.|"
                                 "Acme {brand} Co."),
    ("bank", "de"): word_bank("Sparkasse {town}|Volksbank {town} eG|{brand} Bank AG|Raiffeisenbank {town} eG"),
    ("bank", "en"): word_bank("First National Bank of {town}|{town} Savings Bank|{brand} Credit Union|"
                              "{brand} Bank, N.A."),
    ("insurance", "de"): word_bank("{brand} Versicherung AG|{brand} Versicherungsverein a.G.|"
                                   "{town}-Versicherung AG|{brand} Assekuranz AG"),
    ("insurance", "en"): word_bank("{brand} Mutual Insurance|{brand} Casualty Company|"
                                   "{town} Insurance Group|{brand} Life & Health"),
    ("invoice", "de"): word_bank("{last} Haustechnik GmbH|Elektro {last}|Malerbetrieb {last}|"
                                 "{brand} Onlineshop GmbH|Autohaus {last}|Gartenbau {last}|"
                                 "Zahnarztpraxis Dr. {last}"),
    ("invoice", "en"): word_bank("{last} Plumbing & Heating|{last} Electric LLC|{brand} Office Supplies|"
                                 "{last} Auto Repair|{last} Landscaping|{brand} Computer Services|"
                                 "Dr. {last} Family Dentistry"),
    ("receipt", "de"): word_bank("{brand} Markt|Bäckerei {last}|{town}-Apotheke|Tankstelle {brand}|"
                                 "Drogerie {brand}|Café {last}"),
    ("receipt", "en"): word_bank("{brand} Grocery|{last}'s Hardware|{town} Pharmacy|{brand} Gas Station|"
                                 "{brand} Coffee|{brand} Market"),
    ("tax", "de"): word_bank("Finanzamt {town}"),
    ("tax", "en"): word_bank("{town} County Department of Revenue|Department of Taxation, {town} District Office"),
    ("terms", "de"): word_bank("{brand} Online GmbH|{brand}Net Kommunikation GmbH|{brand} Bank AG|"
                               "{brand} Mobilitätsdienste GmbH|{brand} Streaming GmbH"),
    ("terms", "en"): word_bank("{brand} Online Inc.|{brand} Cloud Services LLC|{brand} Bank, N.A.|"
                               "{brand} Rideshare Inc.|{brand} Streaming LLC"),
}
FAMILY_SUFFIX = {"utility": "bill", "telecom": "phone-bill", "payslip": "payslip", "bank": "statement",
                 "insurance": "premium", "invoice": "invoice", "receipt": "receipt",
                 "tax": "tax-notice", "terms": ""}


def make_vendor(kind: str, lang: str, frng: Random) -> tuple[str, str, int]:
    pats = VENDOR_PATTERNS[(kind, lang)]
    i = frng.randrange(len(pats))
    town = frng.choice(TOWNS[lang])
    name = pats[i].format(town=town, brand=frng.choice(BRANDS), last=frng.choice(LAST[lang]),
                          last2=frng.choice(LAST[lang]))
    return name, town, i


def vendor_head(f: Family, frng: Random) -> list[str]:
    lang, domain = f.lang, slugify(f.vendor.split(" GmbH")[0].split(" Inc")[0])[:24]
    street, city = street_line(frng, lang), city_line(frng, lang, f.town)
    tld = ".de" if lang == "de" else ".com"
    web = f"www.{domain.replace('-', '')}{tld}"
    hotline = phone(frng, lang, hotline=frng.random() < 0.6)
    f.fixed.update(street=street, city=city, web=web, hotline=hotline)
    if lang == "de":
        if frng.random() < 0.5:
            return [f.vendor, f"{street} · {city}", f"Telefon {hotline} · {web}"]
        return [f.vendor, street, city, f"Tel.: {hotline}", f"E-Mail: service@{web[4:]}"]
    return [f.vendor, street, city, f"Customer Service: {hotline}", web]


def vendor_footer(f: Family, frng: Random) -> list[str]:
    if f.lang == "de":
        bic = "".join(frng.choice(UPPER) for _ in range(4)) + "DE" + frng.choice(("M1", "FF", "HH", "33")) + "XXX"
        return [f"{f.vendor} · Sitz: {f.town} · Amtsgericht {frng.choice(TOWNS['de'])} HRB {frng.randint(1000, 99999)}",
                f"USt-IdNr. DE{frng.randint(100000000, 999999999)} · Geschäftsführung: {full_name(person(frng, 'de'))}",
                f"Bankverbindung: IBAN {iban_de(frng)} · BIC {bic}"]
    return [f"{f.vendor} | {f.fixed['street']} | {f.fixed['city']}",
            f"{f.fixed['web']} | {f.fixed['hotline']}"]


def pick_sentences(frng: Random, bank: tuple[str, ...], lo: int, hi: int) -> list[str]:
    return frng.sample(bank, min(len(bank), frng.randint(lo, hi)))


def boiler_lines(sentences: list[str], per_par: int = 2) -> list[str]:
    lines: list[str] = []
    for i in range(0, len(sentences), per_par):
        lines += [""] + wrap(" ".join(sentences[i:i + per_par]))
    return lines


def closing(f: Family) -> list[str]:
    return ["", "Mit freundlichen Grüßen" if f.lang == "de" else "Sincerely,", f.vendor]


def setup_common(world, f: Family, frng: Random) -> None:
    f.fixed["head"] = vendor_head(f, frng)
    f.fixed["footer"] = vendor_footer(f, frng)
    f.fixed["cust_no"] = frng.choice(("KD-{:07d}", "{:010d}", "Kd.-Nr. {:08d}", "{:04d}-{:04d}")).format(
        *([frng.randrange(10**6, 10**7)] * 2))
    bank = BOILER.get((f.kind, f.lang), ())
    f.fixed["boiler"] = pick_sentences(frng, bank, 2, 5) if bank else []
    f.fixed["title_style"] = frng.randrange(3)
    f.fixed["file_style"] = frng.randrange(5)
    f.fixed["cur"] = frng.choice(("EUR", "EUR", "€"))
    f.state["no"] = frng.randint(100, 90000)


def next_no(f: Family, rng: Random, year: int) -> str:
    """Invoice-like numbers grow per family, with gaps (other customers' documents)."""
    f.state["no"] += rint(rng, 1, 400)
    n = f.state["no"]
    style = f.fixed["file_style"] % 3
    if f.lang == "de":
        return (f"RE-{year}-{n:05d}", f"R{year % 100:02d}{n:06d}", f"{year}/{n:06d}")[style]
    return (f"INV-{year}-{n:06d}", f"{n:08d}", f"A{year % 100:02d}-{n:05d}")[style]


def doc_names(f: Family, created: dt.date, label: str, no: str) -> tuple[str, str]:
    """Title and original file name, in the style this family's owner uses."""
    ym = f"{created.year}-{created.month:02d}"
    title = (f"{f.vendor} {label} {ym}", f"{label} {month_year(created, f.lang)}",
             f"{label} {no}" if no else f"{f.vendor} {label}")[f.fixed["title_style"]]
    slug = slugify(f.vendor)
    file = (f"{slugify(label)}_{no or ym}.pdf", f"{slug}_{ym}.pdf", f"{created:%Y%m%d}_{slug}.pdf",
            f"{label.replace(' ', '_')}_{created:%Y-%m-%d}.pdf",
            f"Scan_{created:%Y%m%d}_{(hash_int(no) % 86400) // 3600:02d}{hash_int(no) % 60:02d}.pdf"
            )[f.fixed["file_style"]]
    return title, file


def hash_int(s: str) -> int:
    """A stable small hash (Python's hash() is randomized per process)."""
    h = 0
    for ch in s:
        h = (h * 131 + ord(ch)) % 1000003
    return h
