"""Phone and internet bills."""

from __future__ import annotations

from ..formatting import add_days, d_short, mask_iban, money, month_year, phone, wrap
from ..people import recipient_block, salutation
from ..words import pick, rint
from .family import boiler_lines, closing, doc_names, next_no, setup_common


def setup_telecom(world, f, frng):
    setup_common(world, f, frng)
    plans = (("Mobil M 10 GB", 19.99), ("Mobil L 30 GB", 29.99), ("Internet 250", 44.95),
             ("DSL 100 + Festnetz", 39.99), ("Kabel 500", 49.99)) if f.lang == "de" else \
        (("Unlimited Talk & Text", 35.0), ("Unlimited Plus", 65.0), ("Fiber 500", 59.99),
         ("Home Internet 300", 49.99), ("Family Plan 4 Lines", 140.0))
    f.fixed.update(plan=frng.choice(plans), number=phone(frng, f.lang),
                   iban=world.households[f.lang]["iban"])


def build_telecom(world, f, rng, created):
    x, lang, cur = f.fixed, f.lang, f.fixed["cur"]
    plan, base = x["plan"]
    extras = []
    for _ in range(rint(rng, 0, 4)):
        if lang == "de":
            extras.append(pick(rng, (("Verbindungen ins Ausland", rng.uniform(0.5, 9)),
                                      ("Zusatzoption 5 GB", 4.99), ("Sonderrufnummern", rng.uniform(0.2, 6)),
                                      ("Roaming EU", rng.uniform(0, 3)), ("Drittanbieter", rng.uniform(1, 10)))))
        else:
            extras.append(pick(rng, (("International Calls", rng.uniform(0.5, 9)), ("Data Add-On 5GB", 10.0),
                                      ("Premium Services", rng.uniform(1, 6)), ("Device Payment", 27.5),
                                      ("Roaming", rng.uniform(1, 12)))))
    no = next_no(f, rng, created.year)
    month = month_year(add_days(created, -15), lang)
    items = [(plan, base)] + [(n, round(a, 2)) for n, a in extras]
    total = round(sum(a for _, a in items), 2)
    lines = list(x["head"]) + [""] + recipient_block(world, f.customer, lang) + [""]
    if lang == "de":
        lines += [f"Kundennummer: {x['cust_no']}", f"Rechnungsnummer: {no}",
                  f"Rechnungsdatum: {d_short(created, lang)}", f"Rufnummer: {x['number']}", "",
                  f"Ihre Rechnung für {month}", "", salutation(f.customer, lang),
                  "hier ist Ihre aktuelle Rechnung. Die Leistungen im Überblick:", ""]
        lines += [f"{n}: {money(a, lang, cur)}" for n, a in items]
        net = total / 1.19
        lines += [f"Summe netto: {money(net, lang, cur)}", f"Umsatzsteuer 19 %: {money(total - net, lang, cur)}",
                  f"Rechnungsbetrag: {money(total, lang, cur)}", "",
                  *wrap(f"Der Rechnungsbetrag wird am {d_short(add_days(created, 7), lang)} von Ihrem Konto "
                        f"{mask_iban(x['iban'])} abgebucht.")]
        label = "Telefonrechnung"
    else:
        lines += [f"Account: {x['cust_no']}", f"Bill Date: {d_short(created, lang)}", f"Invoice {no}",
                  f"Service Number: {x['number']}", "", f"Your bill for {month}", ""]
        lines += [f"{n} {money(a, lang)}" for n, a in items]
        lines += [f"Surcharges and Fees {money(round(total * 0.08, 2), lang)}",
                  f"Total Due {money(round(total * 1.08, 2), lang)}",
                  f"AutoPay scheduled for {d_short(add_days(created, 10), lang)}"]
        label = "Phone Bill"
    lines += boiler_lines(x["boiler"]) + closing(f) + [""] + x["footer"]
    title, file = doc_names(f, created, label, no)
    return lines, title, file
