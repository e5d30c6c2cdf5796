"""Till receipts: often tiny, so they exercise the minimum-word skip."""

from __future__ import annotations

from ..formatting import d_short, num
from ..people import street_line
from ..words import pick, rint, word_bank
from .family import doc_names, setup_common


RECEIPT_ITEMS = {
    "de": {"grocery": word_bank("Milch 1,5%|Vollkornbrot|Bananen|Äpfel Elstar|Butter|Joghurt|Käse Gouda|"
                                "Tomaten|Nudeln|Kaffee|Mineralwasser|Eier 10 St."),
           "bakery": word_bank("Brezel|Kaffee|Croissant|Laugenstange|Bauernbrot|Apfelstrudel|Cappuccino"),
           "pharmacy": word_bank("Ibuprofen 400|Nasenspray|Pflaster|Halstabletten|Zinksalbe|Vitamin D"),
           "fuel": word_bank("Super E10|Diesel|Waschanlage|Scheibenreiniger"),
           "drugstore": word_bank("Zahnpasta|Duschgel|Shampoo|Windeln|Taschentücher|Waschmittel"),
           "cafe": word_bank("Latte Macchiato|Espresso|Käsekuchen|Tee|Apfelschorle|Croissant")},
    "en": {"grocery": word_bank("Milk 2%|Wheat Bread|Bananas|Apples Gala|Butter|Yogurt|Cheddar|"
                                "Tomatoes|Pasta|Coffee|Sparkling Water|Eggs Large 12ct"),
           "bakery": word_bank("Bagel|Coffee|Croissant|Muffin|Sourdough Loaf|Danish"),
           "pharmacy": word_bank("Ibuprofen 200mg|Nasal Spray|Bandages|Cough Drops|Vitamin D|Sunscreen"),
           "fuel": word_bank("Regular Unleaded|Diesel|Car Wash|Washer Fluid"),
           "drugstore": word_bank("Toothpaste|Body Wash|Shampoo|Paper Towels|Detergent|Tissues"),
           "cafe": word_bank("Latte|Espresso|Cheesecake|Tea|Lemonade|Scone"),
           "hardware": word_bank("Wood Screws|Paint Roller|Duct Tape|Light Bulbs 4pk|Sandpaper|Caulk")},
}
RECEIPT_SHOP_BY_PATTERN = {"de": ("grocery", "bakery", "pharmacy", "fuel", "drugstore", "cafe"),
                           "en": ("grocery", "hardware", "pharmacy", "fuel", "cafe", "grocery")}


def setup_receipt(world, f, frng):
    setup_common(world, f, frng)
    f.fixed.update(tiny=frng.random() < 0.6, f_street=street_line(frng, f.lang))
    f.state["bon"] = frng.randint(1000, 9000)


def build_receipt(world, f, rng, created):
    x, lang = f.fixed, f.lang
    f.state["bon"] += rint(rng, 5, 900)
    bank = RECEIPT_ITEMS[lang][x["shop"]]
    items = rng.sample(bank, rint(rng, 1, min(len(bank), 3 if x["tiny"] else 6)))
    rows = [(it, round(rng.uniform(0.6, 24), 2)) for it in items]
    total = round(sum(p for _, p in rows), 2)
    hhmm = f"{rint(rng, 7, 20):02d}:{rint(rng, 0, 59):02d}"
    if lang == "de":
        lines = [x["head"][0]] + [f"{it} {num(p, lang)}" for it, p in rows]
        lines += [f"SUMME EUR {num(total, lang)}"]
        if not x["tiny"]:
            lines = [x["head"][0], x["f_street"], x["city"], ""] + lines[1:] + [
                f"Gegeben {pick(rng, ('BAR', 'girocard', 'Kreditkarte'))} {num(total, lang)}",
                f"MwSt 19% {num(total - total / 1.19, lang)}", f"Bon-Nr. {f.state['bon']} Kasse {rint(rng, 1, 6)}",
                "Vielen Dank für Ihren Einkauf!"]
        lines.append(f"{d_short(created, lang)} {hhmm}")
    else:
        lines = [x["head"][0].upper()] + [f"{it} {p:.2f}" for it, p in rows] + [f"TOTAL {total:.2f}"]
        if not x["tiny"]:
            lines = [x["head"][0].upper(), x["f_street"], x["city"], ""] + lines[1:] + [
                f"{pick(rng, ('VISA', 'CASH', 'DEBIT', 'MASTERCARD'))} {total:.2f}",
                f"Sales Tax {total * 0.07:.2f}", f"Trans #{f.state['bon']} Reg {rint(rng, 1, 6)}",
                "Thank you for shopping with us!"]
        lines.append(f"{d_short(created, lang)} {hhmm}")
    label = "Kassenbon" if lang == "de" else "Receipt"
    title, file = doc_names(f, created, label, str(f.state["bon"]))
    return lines, title, file
