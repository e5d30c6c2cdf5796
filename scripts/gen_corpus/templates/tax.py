"""Tax notices."""

from __future__ import annotations

from ..formatting import d_short, money, num, wrap
from ..people import recipient_block
from ..words import rint
from .boilerplate import BOILER, LEGAL
from .family import closing, doc_names, pick_sentences, setup_common


def setup_tax(world, f, frng):
    setup_common(world, f, frng)
    f.fixed.update(taxno=f"{frng.randint(10, 99)}/{frng.randint(100, 999)}/{frng.randint(10000, 99999)}",
                   income=frng.randint(28000, 95000), legal=pick_sentences(frng, LEGAL[f.lang], 2, 4))
    f.state["year"] = frng.randint(2012, 2016)


def build_tax(world, f, rng, created):
    x, lang, cur = f.fixed, f.lang, f.fixed["cur"]
    f.state["year"] += 1
    year = min(f.state["year"], created.year - 1)
    income = round(x["income"] * rng.uniform(0.9, 1.15))
    wk = rint(rng, 1000, 6000)
    special = rint(rng, 2000, 9000)
    taxable = income - wk - special
    tax = round(taxable * rng.uniform(0.14, 0.24))
    paid = round(tax * rng.uniform(0.85, 1.15))
    diff = tax - paid
    lines = list(x["head"][:3]) + [""] + recipient_block(world, f.customer, lang) + [""]
    notes = rng.sample(BOILER[("tax", lang)], 3)
    if lang == "de":
        soli, kist = 0, round(tax * 0.08) if rng.random() < 0.6 else 0
        lines += [f"Steuernummer: {x['taxno']}", f"Datum: {d_short(created, lang)}", "",
                  f"Bescheid für {year} über Einkommensteuer, Solidaritätszuschlag und Kirchensteuer", "",
                  "Festsetzung", f"Einkommensteuer: {money(tax, lang, cur)}",
                  f"Solidaritätszuschlag: {money(soli, lang, cur)}", f"Kirchensteuer: {money(kist, lang, cur)}", "",
                  "Berechnungsgrundlagen",
                  f"Einkünfte aus nichtselbständiger Arbeit: {num(income, lang, 0)} €",
                  f"Werbungskosten: {num(wk, lang, 0)} €", f"Sonderausgaben: {num(special, lang, 0)} €",
                  f"Zu versteuerndes Einkommen: {num(taxable, lang, 0)} €", "",
                  "Abrechnung", f"Bereits gezahlt (Lohnsteuer): {money(paid, lang, cur)}",
                  f"{'Nachzahlung' if diff > 0 else 'Erstattung'}: {money(abs(diff), lang, cur)}", "",
                  "Erläuterungen"]
        label = f"Steuerbescheid {year}"
    else:
        lines += [f"Taxpayer ID: {x['taxno']}", f"Notice Date: {d_short(created, lang)}", "",
                  f"Notice of Assessment - Tax Year {year}", "",
                  f"Adjusted Gross Income {money(income, lang)}", f"Deductions {money(-(wk + special), lang)}",
                  f"Taxable Income {money(taxable, lang)}", f"Tax Assessed {money(tax, lang)}",
                  f"Withholding and Payments {money(-paid, lang)}",
                  f"{'Amount You Owe' if diff > 0 else 'Refund Amount'} {money(abs(diff), lang)}", "",
                  "Explanation of Changes"]
        label = f"Tax Notice {year}"
    lines += wrap(" ".join(notes)) + [""] + wrap(" ".join(x["legal"])) + closing(f)
    title, file = doc_names(f, created, label, "")
    return lines, title, file
