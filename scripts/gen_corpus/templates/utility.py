"""Utility bills: electricity, gas, water."""

from __future__ import annotations

from ..formatting import add_days, d_short, mask_iban, money, month_year, num, wrap
from ..people import recipient_block, salutation
from ..words import pick, rint, UPPER
from .family import boiler_lines, closing, doc_names, next_no, setup_common


def setup_utility(world, f, frng):
    setup_common(world, f, frng)
    carriers = (("Strom", "kWh", 19), ("Erdgas", "kWh", 19), ("Wasser", "m³", 7)) if f.lang == "de" else \
        (("Electric", "kWh", 0), ("Natural Gas", "therms", 0), ("Water", "gal", 0))
    if not any(k in f.vendor for k in ("Stadtwerke", "Gemeindewerke", "Municipal")):
        carriers = carriers[:2]          # an "Energie"/"Power" company sells no water
    if any(k in f.vendor for k in ("Power", "Electric")):
        carriers = carriers[:1]
    carrier, unit, vat = frng.choice(carriers)
    yearly = {"kWh": frng.randint(1800, 4500), "m³": frng.randint(60, 180),
              "therms": frng.randint(400, 1200), "gal": frng.randint(40000, 90000)}[unit]
    if carrier in ("Erdgas",):
        yearly *= 4
    f.fixed.update(carrier=carrier, unit=unit, vat=vat, yearly=yearly,
                   annual=f.lang == "de" and frng.random() < 0.7,
                   meter=f"{frng.randint(1, 9)}{''.join(frng.choice(UPPER) for _ in range(3))}{frng.randint(10**7, 10**8 - 1)}",
                   price=frng.randint(2400, 4200) / 100 if unit == "kWh" else frng.randint(180, 520) / 100,
                   base_day=frng.randint(2500, 5200) / 10000,
                   account=f"{frng.randint(1000, 9999)} {frng.randint(10000, 99999)} {frng.randint(10, 99)}",
                   debit=frng.random() < 0.7, iban=world.households[f.lang]["iban"])
    f.state["reading"] = frng.randint(1000, 60000)


def build_utility(world, f, rng, created):
    x, lang = f.fixed, f.lang
    unit, cur = x["unit"], x["cur"]
    end = add_days(created, -rint(rng, 2, 10))
    days = 365 if x["annual"] else pick(rng, (28, 30, 31))
    start = add_days(end, -days)
    cons = round(x["yearly"] * days / 365 * rng.uniform(0.75, 1.25))
    old = f.state["reading"]
    f.state["reading"] = new = old + cons
    price = x["price"] + pick(rng, (0, 0, 0, 0.37, 1.12, -0.48))
    work = cons * price / 100
    base = days * x["base_day"]
    net = round(work + base, 2)
    no = next_no(f, rng, created.year)
    lines = list(x["head"]) + [""] + recipient_block(world, f.customer, lang) + [""]
    if lang == "de":
        vat = round(net * x["vat"] / 100, 2)
        total = net + vat
        label = "Jahresabrechnung" if x["annual"] else "Rechnung"
        lines += [f"Kundennummer: {x['cust_no']}", f"Vertragskonto: {x['account']}",
                  f"Rechnungsnummer: {no}", f"Rechnungsdatum: {d_short(created, lang)}", "",
                  f"{label} {x['carrier']} für den Zeitraum {d_short(start, lang)} bis {d_short(end, lang)}",
                  "", salutation(f.customer, lang),
                  *wrap(f"nachfolgend erhalten Sie Ihre Abrechnung für die Belieferung mit {x['carrier']} "
                        f"an der Verbrauchsstelle {world.households[lang]['street']}."), "",
                  f"Zählernummer: {x['meter']}",
                  f"Zählerstand alt ({d_short(start, lang)}): {num(old, lang, 0)} {unit}",
                  f"Zählerstand neu ({d_short(end, lang)}): {num(new, lang, 0)} {unit}",
                  f"Verbrauch: {num(cons, lang, 0)} {unit}", "",
                  f"Arbeitspreis: {num(cons, lang, 0)} {unit} x {num(price, lang)} ct/{unit} = {money(work, lang, cur)}",
                  f"Grundpreis: {days} Tage x {num(x['base_day'], lang, 4)} EUR/Tag = {money(base, lang, cur)}",
                  f"Nettobetrag: {money(net, lang, cur)}",
                  f"Umsatzsteuer {x['vat']} %: {money(vat, lang, cur)}",
                  f"Gesamtbetrag: {money(total, lang, cur)}"]
        if x["annual"]:
            paid = round(total * rng.uniform(0.8, 1.15), -1)
            diff = total - paid
            lines += [f"Abzüglich geleistete Abschläge: {money(paid, lang, cur)}",
                      f"{'Nachzahlung' if diff > 0 else 'Guthaben'}: {money(abs(diff), lang, cur)}",
                      f"Ihr neuer monatlicher Abschlag ab {month_year(add_days(created, 30), lang)}: "
                      f"{money(round(total / 12 + 0.5), lang, cur)}"]
            total = abs(diff)
        due = d_short(add_days(created, 14), lang)
        pay = (f"Den Betrag buchen wir am {due} von Ihrem Konto {mask_iban(x['iban'])} ab." if x["debit"]
               else f"Bitte überweisen Sie den Betrag bis zum {due} unter Angabe der Rechnungsnummer.")
    else:
        label = "Statement"
        taxes = round(net * 0.06, 2)
        prev = round(rng.uniform(40, 260), 2)
        total = net + taxes
        lines += [f"Account Number: {x['account']}", f"Statement Date: {d_short(created, lang)}",
                  f"Invoice: {no}", "",
                  f"{x['carrier']} Service {d_short(start, lang)} - {d_short(end, lang)} ({days} days)", "",
                  f"Previous Balance: {money(prev, lang)}", f"Payment Received - Thank You: {money(-prev, lang)}", "",
                  f"Meter #{x['meter']}", f"Previous Reading: {num(old, lang, 0)}",
                  f"Current Reading: {num(new, lang, 0)}", f"Usage: {num(cons, lang, 0)} {unit}",
                  f"Customer Charge: {money(base, lang)}",
                  f"{x['carrier']} Charge {num(cons, lang, 0)} {unit} @ ${price / 100:.4f}: {money(work, lang)}",
                  f"Taxes and Fees: {money(taxes, lang)}",
                  f"Total Amount Due: {money(total, lang)}",
                  f"Due Date: {d_short(add_days(created, 21), lang)}"]
        pay = ("This amount will be automatically deducted from your bank account on the due date."
               if x["debit"] else "Please return the bottom portion with your payment.")
    lines += ["", *wrap(pay)] + boiler_lines(x["boiler"]) + closing(f) + [""] + x["footer"]
    title, file = doc_names(f, created, label if lang == "en" else f"{x['carrier']}rechnung", no)
    return lines, title, file
