"""Owner's manuals: instructions from patterns, then specifications."""

from __future__ import annotations

import datetime as dt
from random import Random

from .formatting import num, slugify, wrap
from .people import BRANDS
from .prose import fill, unique_sentences
from .words import pick, rint, UPPER, word_bank


MANUAL = {
    "de": {
        "patterns": word_bank("""
Reinigen Sie {PART} {MANNER}.
Prüfen Sie {PART} {MANNER}.
Entnehmen Sie {PART} {MANNER}.
Setzen Sie {PART} {MANNER} wieder ein.
Schalten Sie {PRODUCT} aus, bevor Sie {PART} austauschen.
Verwenden Sie {PRODUCT} nicht, wenn {FAULT}.
Wenn {FAULT}, {REMEDY}.
Bewahren Sie diese Anleitung für späteres Nachschlagen auf.
Halten Sie Kinder und Haustiere vom Gerät fern.
Stellen Sie {PRODUCT} auf eine ebene, stabile Fläche.
Drücken Sie die Taste {KEY}, um {FUNC}.
Halten Sie die Taste {KEY} drei Sekunden gedrückt, um {FUNC}.
"""),
        "PART": word_bank("den Wassertank|die Abdeckung|das Netzkabel|den Filter|die Fernbedienung|den Akku|"
                          "die Auffangschale|den Staubbehälter|die Düse|das Sieb|die Dichtung|den Deckel|"
                          "die Kartusche|den Sensor|die Halterung|das Ladegerät|die Bürste"),
        "MANNER": word_bank("regelmäßig mit einem feuchten Tuch|nur im ausgeschalteten Zustand|"
                            "mindestens einmal im Monat|vorsichtig mit beiden Händen|ohne scharfe Reinigungsmittel|"
                            "nach jedem Gebrauch|wie in Abbildung 3 gezeigt|bis er hörbar einrastet|"
                            "unter fließendem Wasser|nach dem Abkühlen"),
        "FAULT": word_bank("das Gerät nicht startet|die Anzeige blinkt|ungewöhnliche Geräusche auftreten|"
                           "Wasser austritt|die Verbindung abbricht|das Netzkabel beschädigt ist|"
                           "die Fehlermeldung E{n} erscheint|das Gerät stark riecht|der Akku nicht lädt"),
        "REMEDY": word_bank("prüfen Sie die Stromversorgung|starten Sie das Gerät neu|"
                            "wenden Sie sich an den Kundendienst|setzen Sie das Gerät auf Werkseinstellungen zurück|"
                            "entkalken Sie das Gerät|reinigen Sie den Filter|ziehen Sie sofort den Netzstecker|"
                            "lassen Sie das Gerät abkühlen"),
        "KEY": word_bank("EIN/AUS|MENU|OK|START|MODE|RESET|WLAN|TIMER"),
        "FUNC": word_bank("das Menü zu öffnen|den Timer einzustellen|die Verbindung herzustellen|"
                          "die Kindersicherung zu aktivieren|das Gerät zurückzusetzen|den Energiesparmodus zu wählen"),
    },
    "en": {
        "patterns": word_bank("""
Clean {PART} {MANNER}.
Check {PART} {MANNER}.
Remove {PART} {MANNER}.
Reinsert {PART} {MANNER}.
Turn off {PRODUCT} before replacing {PART}.
Do not use {PRODUCT} if {FAULT}.
If {FAULT}, {REMEDY}.
Keep these instructions for future reference.
Keep children and pets away from {PRODUCT}.
Place {PRODUCT} on a flat, stable surface.
Press the {KEY} button to {FUNC}.
Press and hold the {KEY} button for three seconds to {FUNC}.
"""),
        "PART": word_bank("the water tank|the cover|the power cord|the filter|the remote control|the battery|"
                          "the drip tray|the dust container|the nozzle|the strainer|the gasket|the lid|"
                          "the cartridge|the sensor|the mounting bracket|the charger|the brush roll"),
        "MANNER": word_bank("regularly with a damp cloth|only when the unit is switched off|at least once a month|"
                            "carefully with both hands|without abrasive cleaners|after each use|"
                            "as shown in figure 3|until it clicks into place|under running water|"
                            "after it has cooled down"),
        "FAULT": word_bank("the unit does not start|the display is flashing|you hear unusual noises|water is leaking|"
                           "the connection drops|the power cord is damaged|error code E{n} appears|"
                           "you notice a burning smell|the battery does not charge"),
        "REMEDY": word_bank("check the power supply|restart the unit|contact customer service|"
                            "reset the unit to factory settings|descale the unit|clean the filter|"
                            "unplug the unit immediately|let the unit cool down"),
        "KEY": word_bank("POWER|MENU|OK|START|MODE|RESET|WIFI|TIMER"),
        "FUNC": word_bank("open the menu|set the timer|connect to your network|enable the child lock|"
                          "reset the unit|select energy saving mode"),
    },
}
PRODUCTS = {
    "de": word_bank("Kaffeevollautomat|Waschmaschine|Akku-Staubsauger|WLAN-Router|Tintenstrahldrucker|"
                    "Geschirrspüler|Mikrowelle|Fahrradcomputer|Rauchwarnmelder|Heizkörperthermostat|Luftreiniger"),
    "en": word_bank("coffee maker|washing machine|cordless vacuum|wireless router|inkjet printer|dishwasher|"
                    "microwave oven|bike computer|smoke alarm|smart thermostat|air purifier"),
}
MANUAL_SECTIONS = {
    "de": word_bank("Sicherheitshinweise|Lieferumfang|Inbetriebnahme|Bedienung|Reinigung und Pflege|"
                    "Fehlerbehebung|Entsorgung"),
    "en": word_bank("Safety Instructions|What's in the Box|Getting Started|Operation|Cleaning and Care|"
                    "Troubleshooting|Disposal"),
}


def build_manual(world, rng: Random, lang: str, created: dt.date):
    product = pick(rng, PRODUCTS[lang])
    brand = pick(rng, BRANDS)
    model = f"{pick(rng, UPPER)}{pick(rng, UPPER)}-{rint(rng, 100, 9999)}"
    # German needs the product's gender for an article; "das Gerät" is what manuals say anyway
    extra = {"PRODUCT": "das Gerät" if lang == "de" else pick(rng, ("the unit", f"the {product}"))}
    bank = MANUAL[lang]
    lines = [f"{brand} {product} {model}", "Bedienungsanleitung" if lang == "de" else "Owner's Manual"]
    for head in rng.sample(MANUAL_SECTIONS[lang], rint(rng, 3, 7)):
        sents = unique_sentences(rng, rint(rng, 3, 9), lambda: fill(
            rng, bank, pick(rng, bank["patterns"]), lang, extra).replace("{n}", str(rint(rng, 1, 9))))
        lines += ["", head] + wrap(" ".join(sents))
    watt = rint(rng, 5, 2400)
    lines += ["", "Technische Daten" if lang == "de" else "Specifications",
              f"{'Nennspannung' if lang == 'de' else 'Rated voltage'}: "
              f"{'220-240 V ~ 50 Hz' if lang == 'de' else '120 V ~ 60 Hz'}",
              f"{'Leistung' if lang == 'de' else 'Power'}: {watt} W",
              f"{'Gewicht' if lang == 'de' else 'Weight'}: {num(rng.uniform(0.2, 60), lang, 1)} kg"]
    title = f"{'Bedienungsanleitung' if lang == 'de' else 'Manual'} {brand} {product}"
    return lines, title, f"{slugify(brand)}_{slugify(model)}_{'anleitung' if lang == 'de' else 'manual'}.pdf", brand
