"""Payslips."""

from __future__ import annotations

import datetime as dt

from ..formatting import add_days, d_short, money, month_year, num
from ..people import full_name, STATES
from ..words import pick, rint
from .family import boiler_lines, doc_names, setup_common


def setup_payslip(world, f, frng):
    setup_common(world, f, frng)
    f.fixed.update(pnr=f"{frng.randint(1000, 99999)}", tax_class=frng.choice((1, 3, 4, 4, 5)),
                   church=frng.choice(("rk", "ev", "--", "--")), entry=dt.date(frng.randint(2005, 2018),
                   frng.randint(1, 12), 1), health=frng.choice(("AOK", "TK", "BARMER", "DAK", "IKK classic")),
                   iban=world.households[f.lang]["iban"], rate=frng.randint(2200, 5600) / 100,
                   state=frng.choice(STATES), ssn=frng.randint(1000, 9999))
    f.state["gross"] = frng.randint(2600, 6800) if f.lang == "de" else 0


def build_payslip(world, f, rng, created):
    x, lang = f.fixed, f.lang
    if rng.random() < 0.08:  # an occasional raise
        f.state["gross"] = round(f.state.get("gross", 0) * 1.03)
        x["rate"] = round(x["rate"] * 1.03, 2)
    lines = list(x["head"][:3]) + [""]
    name = full_name(f.customer)
    if lang == "de":
        gross = f.state["gross"]
        extra = pick(rng, (0, 0, 0, round(rng.uniform(50, 900), 2)))
        total = gross + extra + 40
        tax = round(total * rng.uniform(0.09, 0.16), 2)
        church = round(tax * 0.09, 2) if x["church"] != "--" else 0.0
        kv, rv = round(total * 0.0815, 2), round(total * 0.093, 2)
        av, pv = round(total * 0.013, 2), round(total * 0.017, 2)
        net = total - tax - church - kv - rv - av - pv
        ym = month_year(created, lang)
        lines += [f"Abrechnung der Brutto/Netto-Bezüge für {ym}", "",
                  f"Personalnummer: {x['pnr']}    Eintritt: {d_short(x['entry'], lang)}",
                  f"{name}    Steuerklasse: {x['tax_class']}    Konfession: {x['church']}",
                  world.households[lang]["street"], world.households[lang]["city"],
                  f"Krankenkasse: {x['health']}", "",
                  "Bezeichnung                          Betrag",
                  f"Gehalt                               {num(gross, lang)}",
                  f"Vermögenswirksame Leistungen         {num(40, lang)}"]
        if extra:
            label = pick(rng, ("Überstunden", "Einmalzahlung", "Fahrtkostenzuschuss", "Prämie"))
            lines.append(f"{label:<37}{num(extra, lang)}")
        lines += [f"Gesamtbrutto                         {num(total, lang)}", "",
                  f"Lohnsteuer                           {num(tax, lang)}",
                  f"Solidaritätszuschlag                 {num(0, lang)}",
                  f"Kirchensteuer                        {num(church, lang)}",
                  f"Krankenversicherung                  {num(kv, lang)}",
                  f"Rentenversicherung                   {num(rv, lang)}",
                  f"Arbeitslosenversicherung             {num(av, lang)}",
                  f"Pflegeversicherung                   {num(pv, lang)}", "",
                  f"Nettobezug                           {num(net, lang)}",
                  f"VL-Sparrate                          {num(-40, lang)}",
                  f"Auszahlungsbetrag                    {num(net - 40, lang)}", "",
                  f"Überweisung auf IBAN {x['iban']}",
                  f"Steuerbrutto lfd. Jahr: {num(total * created.month, lang)}   "
                  f"Lohnsteuer lfd. Jahr: {num(tax * created.month, lang)}"]
        label = "Gehaltsabrechnung"
    else:
        hours = pick(rng, (80, 80, 80, 72, 76, 88))
        ot = pick(rng, (0, 0, 0, rint(rng, 2, 12)))
        gross = round(hours * x["rate"] + ot * x["rate"] * 1.5, 2)
        fed, ss, med = round(gross * rng.uniform(0.08, 0.14), 2), round(gross * 0.062, 2), round(gross * 0.0145, 2)
        st, k401, medical = round(gross * 0.045, 2), round(gross * 0.05, 2), 84.5
        net = gross - fed - ss - med - st - k401 - medical
        start = add_days(created, -18)
        ytd = max(1, (created.timetuple().tm_yday // 14))
        lines += ["EARNINGS STATEMENT", "",
                  f"Employee: {name}    Employee ID: {x['pnr']}    SSN: XXX-XX-{x['ssn']}",
                  f"Pay Period: {d_short(start, lang)} - {d_short(add_days(start, 13), lang)}    "
                  f"Pay Date: {d_short(created, lang)}", "",
                  "Earnings        Rate     Hours    Current      YTD",
                  f"Regular         {x['rate']:.2f}    {hours:.2f}    {hours * x['rate']:,.2f}    {hours * x['rate'] * ytd:,.2f}"]
        if ot:
            lines.append(f"Overtime        {x['rate'] * 1.5:.2f}    {ot:.2f}    {ot * x['rate'] * 1.5:,.2f}")
        lines += [f"Gross Pay                         {gross:,.2f}    {gross * ytd:,.2f}", "",
                  "Deductions                        Current      YTD",
                  f"Federal Income Tax                {fed:,.2f}    {fed * ytd:,.2f}",
                  f"Social Security                   {ss:,.2f}    {ss * ytd:,.2f}",
                  f"Medicare                          {med:,.2f}    {med * ytd:,.2f}",
                  f"State Income Tax {x['state']}              {st:,.2f}    {st * ytd:,.2f}",
                  f"401(k)                            {k401:,.2f}    {k401 * ytd:,.2f}",
                  f"Medical Pre-Tax                   {medical:,.2f}    {medical * ytd:,.2f}", "",
                  f"Net Pay                           {net:,.2f}",
                  f"Direct Deposit: Checking XXXXXX{x['ssn']}    {money(net, lang)}"]
        label = "Payslip"
    lines += boiler_lines(x["boiler"][:2])
    title, file = doc_names(f, created, label, "")
    return lines, title, file
