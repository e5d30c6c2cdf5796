"""Trade and shop invoices."""

from __future__ import annotations

from ..formatting import add_days, d_short, iban_de, money, num, wrap
from ..people import recipient_block, salutation
from ..words import pick, rint, word_bank
from .family import boiler_lines, closing, doc_names, next_no, setup_common


ITEMS = {
    "de": {
        "plumber": word_bank("Arbeitszeit Monteur|Anfahrtspauschale|Kleinmaterial|Kupferrohr 15 mm|"
                             "Thermostatventil|Dichtungssatz|Entsorgung Altmaterial|Heizkörper entlüften|"
                             "Wartung Gastherme|Abgasmessung|Eckventil verchromt|Siphon"),
        "electric": word_bank("Steckdose Unterputz|Leitungsschutzschalter B16|FI-Schutzschalter|"
                              "Installationskabel NYM-J 3x1,5|Arbeitszeit Elektriker|Abzweigdose|"
                              "LED-Deckenleuchte|Prüfprotokoll E-Check|Anfahrt"),
        "painter": word_bank("Wandfläche streichen|Abdeckarbeiten|Dispersionsfarbe weiß|Tapezierarbeiten|"
                             "Spachtelarbeiten|Raufasertapete|Lackierarbeiten Türen|Malervlies"),
        "shop": word_bank("USB-C Ladekabel 2 m|Druckerpatrone schwarz|Kopierpapier A4 500 Blatt|"
                          "Bluetooth-Lautsprecher|Versandkosten|Funkmaus|HDMI-Kabel|Powerbank 10000 mAh|"
                          "Notebooktasche 15 Zoll"),
        "garage": word_bank("Inspektion nach Herstellervorgabe|Motoröl 5W-30|Ölfilter|Bremsbeläge vorne|"
                            "Hauptuntersuchung|Reifenwechsel|Scheibenwischer|Klimaservice|Luftfilter"),
        "garden": word_bank("Heckenschnitt|Rasen mähen|Grünschnitt entsorgen|Rindenmulch|Baumpflege|"
                            "Pflasterfugen reinigen|Laub entfernen|Anfahrt Kleintransporter"),
        "dentist": word_bank("Professionelle Zahnreinigung|Füllung Kunststoff|Röntgenaufnahme|Beratung|"
                             "Untersuchung|Oberflächenanästhesie|Fluoridierung"),
    },
    "en": {
        "plumber": word_bank("Labor - Service Technician|Trip Charge|Materials|Copper Pipe 1/2 in|"
                             "Shutoff Valve|Wax Ring|Water Heater Flush|Drain Cleaning|Faucet Cartridge"),
        "electric": word_bank("GFCI Outlet|20A Breaker|Romex 12/2 Wire|Labor - Electrician|Junction Box|"
                              "LED Ceiling Fixture|Panel Inspection|Service Call"),
        "shop": word_bank("USB-C Cable 6 ft|Black Ink Cartridge|Copy Paper Letter 500 Sheets|"
                          "Bluetooth Speaker|Shipping|Wireless Mouse|HDMI Cable|Power Bank|Laptop Sleeve"),
        "garage": word_bank("Oil Change Synthetic|Oil Filter|Front Brake Pads|State Inspection|"
                            "Tire Rotation|Wiper Blades|A/C Recharge|Cabin Air Filter|Diagnostic Fee"),
        "garden": word_bank("Hedge Trimming|Lawn Mowing|Yard Waste Removal|Mulch|Tree Pruning|"
                            "Leaf Cleanup|Aeration|Fertilizer Application"),
        "computer": word_bank("Virus Removal|Data Backup|SSD 1TB|Memory Upgrade 16GB|Labor - Technician|"
                              "Router Setup|Printer Setup"),
        "dentist": word_bank("Periodic Oral Evaluation|Prophylaxis - Adult|Bitewing X-Rays|"
                             "Composite Filling|Fluoride Varnish|Consultation"),
    },
}
# What an invoice/receipt vendor sells, by index into its VENDOR_PATTERNS entry.
INVOICE_TRADE_BY_PATTERN = {"de": ("plumber", "electric", "painter", "shop", "garage", "garden", "dentist"),
                            "en": ("plumber", "electric", "shop", "garage", "garden", "computer", "dentist")}


def setup_invoice(world, f, frng):
    setup_common(world, f, frng)
    f.fixed.update(iban=iban_de(frng), terms=frng.choice((7, 14, 14, 30)))


def build_invoice(world, f, rng, created):
    x, lang, cur = f.fixed, f.lang, f.fixed["cur"]
    bank = ITEMS[lang][x["trade"]]
    rows = []
    for pos, item in enumerate(rng.sample(bank, rint(rng, 2, min(8, len(bank)))), 1):
        qty = pick(rng, (1, 1, 1, 2, 3, 4, 0.5, 1.5, 2.5))
        price = round(rng.uniform(4, 190), 2)
        rows.append((pos, qty, item, price, round(qty * price, 2)))
    net = round(sum(r[4] for r in rows), 2)
    no = next_no(f, rng, created.year)
    lines = list(x["head"]) + [""] + recipient_block(world, f.customer, lang) + [""]
    if lang == "de":
        vat = round(net * 0.19, 2)
        lines += [f"Rechnung Nr. {no}", f"Kundennummer: {x['cust_no']}", f"Rechnungsdatum: {d_short(created, lang)}",
                  f"Leistungsdatum: {d_short(add_days(created, -rint(rng, 0, 10)), lang)}", "",
                  salutation(f.customer, lang), "wir berechnen Ihnen folgende Leistungen:", "",
                  "Pos.  Menge  Bezeichnung                      Einzelpreis    Gesamt"]
        lines += [f"{p:<4}  {num(q, lang, 1):>5}  {it:<32} {num(pr, lang):>10} {num(tot, lang):>10}"
                  for p, q, it, pr, tot in rows]
        lines += ["", f"Nettobetrag: {money(net, lang, cur)}", f"zzgl. 19 % USt.: {money(vat, lang, cur)}",
                  f"Rechnungsbetrag: {money(net + vat, lang, cur)}", "",
                  *wrap(f"Zahlbar innerhalb von {x['terms']} Tagen ohne Abzug auf das Konto IBAN {x['iban']}.")]
        label = "Rechnung"
    else:
        tax = round(net * 0.0725, 2)
        lines += [f"INVOICE # {no}", f"Customer ID: {x['cust_no']}", f"Date: {d_short(created, lang)}",
                  f"Terms: Net {x['terms']}", "", "Qty   Description                      Unit Price     Amount"]
        lines += [f"{q:<5} {it:<32} {pr:>10,.2f} {tot:>10,.2f}" for p, q, it, pr, tot in rows]
        lines += ["", f"Subtotal {money(net, lang)}", f"Sales Tax 7.25% {money(tax, lang)}",
                  f"Total {money(net + tax, lang)}", f"Balance Due {money(net + tax, lang)}",
                  f"Payment due by {d_short(add_days(created, x['terms']), lang)}"]
        label = "Invoice"
    lines += boiler_lines(x["boiler"][:3]) + closing(f) + [""] + x["footer"]
    title, file = doc_names(f, created, label, no)
    return lines, title, file
