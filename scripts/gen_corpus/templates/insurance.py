"""Insurance premium notices."""

from __future__ import annotations

import datetime as dt

from ..formatting import d_long, d_short, mask_iban, money, num, wrap
from ..people import recipient_block, salutation
from ..words import pick, rint, UPPER
from .family import boiler_lines, closing, doc_names, setup_common


def setup_insurance(world, f, frng):
    setup_common(world, f, frng)
    prods = ("Hausratversicherung", "Kfz-Versicherung", "Privathaftpflichtversicherung",
             "Wohngebäudeversicherung", "Rechtsschutzversicherung", "Zahnzusatzversicherung") if f.lang == "de" \
        else ("Auto Insurance", "Homeowners Insurance", "Renters Insurance", "Umbrella Liability",
              "Dental Plan", "Term Life Insurance")
    f.fixed.update(product=frng.choice(prods), policy=f"{frng.randint(10, 99)}-{frng.randint(100000, 999999)}-"
                   f"{frng.choice(UPPER)}{frng.randint(10, 99)}", plate=f"{frng.choice(UPPER)}{frng.choice(UPPER)}-"
                   f"{frng.choice(UPPER)} {frng.randint(10, 9999)}", iban=world.households[f.lang]["iban"],
                   pay=frng.choice(("jährlich", "halbjährlich", "monatlich")))
    f.state["premium"] = frng.uniform(60, 900)


def build_insurance(world, f, rng, created):
    x, lang, cur = f.fixed, f.lang, f.fixed["cur"]
    change = pick(rng, (0.0, 0.0, 0.03, 0.05, -0.02, 0.08))
    f.state["premium"] *= 1 + change
    prem = round(f.state["premium"], 2)
    start = dt.date(created.year + (created.month > 10), 1, 1)
    lines = list(x["head"]) + [""] + recipient_block(world, f.customer, lang) + [""]
    if lang == "de":
        tax = round(prem * 0.19, 2)
        lines += [f"Versicherungsschein-Nr.: {x['policy']}", f"Datum: {d_short(created, lang)}", "",
                  f"Beitragsrechnung {start.year} – {x['product']}", "", salutation(f.customer, lang),
                  *wrap(f"für Ihre {x['product']} berechnen wir für den Zeitraum {d_short(start, lang)} bis "
                        f"{d_short(dt.date(start.year, 12, 31), lang)} folgenden Beitrag:"), ""]
        if x["product"].startswith("Kfz"):
            lines += [f"Amtliches Kennzeichen: {x['plate']}",
                      f"Schadenfreiheitsklasse: SF {rint(rng, 3, 25)}", f"Regionalklasse: {rint(rng, 2, 12)}"]
        else:
            lines.append(f"Versicherungssumme: {money(pick(rng, (65000, 80000, 120000, 250000)), lang, cur)}")
        lines += [f"Nettobeitrag: {money(prem, lang, cur)}", f"Versicherungsteuer 19 %: {money(tax, lang, cur)}",
                  f"Jahresbeitrag: {money(prem + tax, lang, cur)}", f"Zahlungsweise: {x['pay']}", ""]
        if change > 0:
            lines += wrap(f"Ihr Beitrag erhöht sich um {num(change * 100, lang, 1)} %. Grund dafür sind die "
                          "gestiegenen Kosten für Reparaturen und Schadenregulierung.")
        lines += wrap(f"Der Beitrag wird am {d_short(start, lang)} von Ihrem Konto {mask_iban(x['iban'])} abgebucht.")
        label = "Beitragsrechnung"
    else:
        lines += [f"Policy Number: {x['policy']}", f"Notice Date: {d_short(created, lang)}", "",
                  f"Renewal Declaration - {x['product']}", "", salutation(f.customer, lang),
                  *wrap(f"Your {x['product'].lower()} policy renews on {d_long(start, lang)}. "
                        "Your coverage and premium for the new policy period are shown below."), "",
                  f"Policy Period: {d_short(start, lang)} to {d_short(dt.date(start.year, 12, 31), lang)}",
                  f"Coverage Limit: {money(pick(rng, (100000, 250000, 300000, 500000)), lang)}",
                  f"Deductible: {money(pick(rng, (250, 500, 1000)), lang)}",
                  f"Annual Premium: {money(prem, lang)}",
                  f"Premium Change: {change * 100:+.1f}%"]
        label = "Insurance Renewal"
    lines += boiler_lines(x["boiler"]) + closing(f) + [""] + x["footer"]
    title, file = doc_names(f, created, label, x["policy"] + f"-{created.year}")
    return lines, title, file
