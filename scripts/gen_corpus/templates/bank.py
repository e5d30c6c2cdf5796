"""Bank statements."""

from __future__ import annotations

from ..formatting import add_days, d_short, money, month_year, num
from ..people import BRANDS, FIRST_F, full_name, LAST, recipient_block, TOWNS
from ..words import pick, rint
from .family import boiler_lines, doc_names, setup_common


TX = {
    "de": (("Lastschrift", "Stadtwerke {town}", "Abschlag Strom Vertragskonto {n}"),
           ("Lastschrift", "{brand} Versicherung AG", "Beitrag Versicherungsschein {n}"),
           ("Kartenzahlung", "{brand} Markt {town}", "Kartenzahlung girocard {d}"),
           ("Kartenzahlung", "Tankstelle {brand}", "Kartenzahlung {d}"),
           ("Dauerauftrag", "Hausverwaltung {last}", "Miete {m} Wohnung {n}"),
           ("Gutschrift", "{brand} Logistik GmbH", "Lohn/Gehalt {m}"),
           ("Überweisung", "{first} {last}", "Rückzahlung Auslage"),
           ("Bargeldauszahlung", "GA {town}", "Geldautomat {d}"),
           ("Lastschrift", "{brand}Net Kommunikation GmbH", "Rechnung {n}"),
           ("Gutschrift", "Familienkasse {town}", "Kindergeld {m}"),
           ("Lastschrift", "Apotheke am Markt", "Einkauf {d}"),
           ("Überweisung", "Finanzamt {town}", "Steuernummer {n} ESt"),
           ("Lastschrift", "Sportverein {town} e.V.", "Mitgliedsbeitrag {m}"),
           ("Kartenzahlung", "Bäckerei {last}", "Kartenzahlung {d}")),
    "en": (("ACH DEBIT", "{town} POWER & LIGHT", "AUTOPAY {n}"),
           ("ACH DEBIT", "{brand} MUTUAL INS", "PREMIUM {n}"),
           ("POS PURCHASE", "{brand} GROCERY {town}", "CARD 4417 {d}"),
           ("POS PURCHASE", "{brand} GAS STATION", "CARD 4417 {d}"),
           ("ONLINE TRANSFER", "RENT {last} PROPERTIES", "REF {n}"),
           ("DIRECT DEPOSIT", "{brand} INDUSTRIES PAYROLL", "PPD {m}"),
           ("ZELLE PAYMENT", "{first} {last}", "CONF {n}"),
           ("ATM WITHDRAWAL", "{town} BRANCH", "{d}"),
           ("ACH DEBIT", "{brand}TEL WIRELESS", "BILL PAY {n}"),
           ("CHECK", "#{n}", ""),
           ("POS PURCHASE", "{town} PHARMACY", "CARD 4417 {d}"),
           ("ACH DEBIT", "{brand} CREDIT CARD", "PAYMENT {n}"),
           ("POS PURCHASE", "{last}'S HARDWARE", "CARD 4417 {d}")),
}


def setup_bank(world, f, frng):
    setup_common(world, f, frng)
    f.fixed.update(iban=world.households[f.lang]["iban"], acct=f"{frng.randint(10**8, 10**9 - 1)}")
    f.state.update(balance=frng.uniform(300, 9000), stmt=frng.randint(1, 8))


def build_bank(world, f, rng, created):
    x, lang = f.fixed, f.lang
    f.state["stmt"] += 1
    start = add_days(created, -rint(rng, 25, 31))
    old = f.state["balance"]
    ntx = pick(rng, (2, 3, 5, 8, 10, 12, 15, 20, 25, 32, 40))
    rows, bal = [], old
    for i in range(ntx):
        kind, who, why = pick(rng, TX[lang])
        d = add_days(start, 1 + (i * 28) // ntx)
        fill = dict(town=pick(rng, TOWNS[lang]), brand=pick(rng, BRANDS), last=pick(rng, LAST[lang]),
                    first=pick(rng, FIRST_F[lang]), n=rint(rng, 10000, 9999999),
                    d=d_short(d, lang), m=month_year(d, lang))
        credit = kind in ("Gutschrift", "DIRECT DEPOSIT") or (kind == "Überweisung" and rng.random() < 0.3)
        amt = round(rng.uniform(800, 4200) if credit and "Lohn" in why or "PAYROLL" in who
                    else rng.uniform(2, 260), 2) * (1 if credit else -1)
        bal += amt
        rows.append((d, kind, who.format(**fill), why.format(**fill), amt))
    f.state["balance"] = bal
    lines = list(x["head"][:3]) + [""] + recipient_block(world, f.customer, lang) + [""]
    if lang == "de":
        lines += [f"Kontoauszug Nr. {f.state['stmt']}/{created.year}    Blatt 1/1",
                  f"Kontoinhaber: {full_name(f.customer)}", f"IBAN: {x['iban']}",
                  f"Zeitraum: {d_short(start, lang)} bis {d_short(created, lang)}", "",
                  f"Alter Kontostand vom {d_short(start, lang)}: {money(old, lang, x['cur'])}", "",
                  "Buchung  Valuta  Vorgang                         Betrag"]
        for d, kind, who, why, amt in rows:
            lines += [f"{d.day:02d}.{d.month:02d}.  {d.day:02d}.{d.month:02d}.  {kind:<30}  {num(amt, lang)}",
                      f"    {who}", f"    {why}"]
        lines += ["", f"Neuer Kontostand vom {d_short(created, lang)}: {money(bal, lang, x['cur'])}"]
        label = "Kontoauszug"
    else:
        credits = sum(r[4] for r in rows if r[4] > 0)
        debits = -sum(r[4] for r in rows if r[4] < 0)
        lines += [f"Account Number: XXXXX{x['acct'][-4:]}",
                  f"Statement Period: {d_short(start, lang)} through {d_short(created, lang)}", "",
                  f"Beginning Balance {money(old, lang)}", f"Deposits and Other Credits {money(credits, lang)}",
                  f"Withdrawals and Other Debits {money(-debits, lang)}", f"Ending Balance {money(bal, lang)}",
                  "", "Date   Description                                   Amount"]
        for d, kind, who, why, amt in rows:
            lines.append(f"{d.month:02d}/{d.day:02d}  {kind} {who} {why}".rstrip() + f"  {amt:,.2f}")
        label = "Statement"
    lines += boiler_lines(x["boiler"][:3], 1) + [""] + x["footer"]
    title, file = doc_names(f, created, label, f"{f.state['stmt']:03d}-{created.year}")
    return lines, title, file
