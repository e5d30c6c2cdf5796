"""Contracts: lease, employment, service and sale agreements from clause patterns."""

from __future__ import annotations

import datetime as dt
from random import Random

from .formatting import add_days, d_long, d_short, slugify, wrap
from .people import city_line, full_name, person, street_line
from .prose import fill, unique_sentences
from .words import pick, rint, word_bank


CONTRACT = {
    "de": {
        "patterns": word_bank("""
{P} verpflichtet sich, {OBL} {WHEN}.
{P} ist berechtigt, {RIGHT}, {IF}.
Die Vergütung beträgt {AMOUNT} {PER} und ist {DUE}.
Das Vertragsverhältnis kann von beiden Seiten {NOTICE} gekündigt werden.
{P} haftet nur für Vorsatz und grobe Fahrlässigkeit, {IF}.
{P} stellt {P2} {PROV} zur Verfügung.
Kosten für {COST} trägt {P}.
{IF2} {P} {OBL} {WHEN}.
Änderungen und Ergänzungen dieses Vertrages bedürfen der Schriftform.
{P} hat {P2} {INFO} {WHEN} mitzuteilen.
"""),
        "P": word_bank("der Mieter|die Vermieterin|der Auftragnehmer|die Auftraggeberin|der Arbeitnehmer|"
                       "der Arbeitgeber|der Käufer|die Verkäuferin|der Dienstleister|die Kundin"),
        "P2": word_bank("dem Mieter|der Vermieterin|dem Auftragnehmer|der Auftraggeberin|dem Arbeitnehmer|"
                        "dem Käufer|der Kundin"),
        "OBL": word_bank("""
die Mietsache pfleglich zu behandeln
Schäden unverzüglich anzuzeigen
die vereinbarte Vergütung pünktlich zu zahlen
Verschwiegenheit über alle Betriebsgeheimnisse zu wahren
die Leistungen fachgerecht auszuführen
die Schönheitsreparaturen in angemessenen Abständen durchzuführen
die Hausordnung einzuhalten
das Fahrzeug frei von Rechten Dritter zu übergeben
eine Arbeitsunfähigkeit spätestens am dritten Tag nachzuweisen
die Arbeitszeit elektronisch zu erfassen
die erforderlichen Genehmigungen einzuholen
die Kaution auf einem gesonderten Konto anzulegen
alle Unterlagen nach Vertragsende zurückzugeben
die gesetzlichen Sicherheitsvorschriften zu beachten
Nebentätigkeiten vorher schriftlich anzuzeigen
die Wohnung ausreichend zu lüften und zu heizen
Termine mindestens zwei Werktage im Voraus abzustimmen
"""),
        "WHEN": word_bank("während der gesamten Vertragslaufzeit|nach Aufforderung|innerhalb von zwei Wochen|"
                          "zum Ende eines jeden Kalendermonats|vor Beginn der Arbeiten|bei Übergabe|"
                          "unverzüglich|auf eigene Kosten|nach Maßgabe der gesetzlichen Vorschriften"),
        "RIGHT": word_bank("""
den Vertrag fristlos zu kündigen
Untermieter nach vorheriger Zustimmung aufzunehmen
eine angemessene Vorauszahlung zu verlangen
Teilleistungen gesondert abzurechnen
die Räume nach Ankündigung zu besichtigen
die Vergütung einmal jährlich anzupassen
Subunternehmer einzusetzen
die Annahme mangelhafter Ware zu verweigern
"""),
        "IF": word_bank("sofern nichts anderes vereinbart ist|wenn ein wichtiger Grund vorliegt|"
                        "soweit gesetzlich zulässig|es sei denn, es liegt ein Notfall vor|"
                        "nachdem eine angemessene Frist erfolglos verstrichen ist|"
                        "wenn die Zahlung mehr als zwei Monate aussteht"),
        "IF2": word_bank("Auf Verlangen hat|Im Übrigen hat|Bei Vertragsende hat|Vor Beginn hat|Gleichzeitig hat"),
        "PER": word_bank("monatlich|pro Stunde|pauschal|je Quartal|jährlich"),
        "DUE": word_bank("jeweils zum dritten Werktag des Monats fällig|nach Rechnungsstellung zahlbar|"
                         "bei Übergabe in bar zu entrichten|auf das Konto des Empfängers zu überweisen"),
        "NOTICE": word_bank("mit einer Frist von drei Monaten zum Monatsende|mit einer Frist von vier Wochen|"
                            "zum Ende eines Kalendervierteljahres|unter Einhaltung der gesetzlichen Fristen"),
        "PROV": word_bank("einen Stellplatz|die erforderlichen Arbeitsmittel|einen Kellerraum|ein Dienstfahrzeug|"
                          "die Zugangsdaten zum Kundenportal|einen Schlüssel für den Haupteingang|ein Mobiltelefon"),
        "COST": word_bank("Reparaturen bis 100 Euro|die Anfahrt|Schönheitsreparaturen|die Abnahme|"
                          "die Ummeldung des Fahrzeugs|Fortbildungen|die Versicherung der Einrichtung"),
        "INFO": word_bank("jede Änderung der Anschrift|eine Verhinderung|den Verlust eines Schlüssels|"
                          "Mängel an der Sache|eine Nebentätigkeit|eine Änderung der Bankverbindung"),
    },
    "en": {
        "patterns": word_bank("""
The {P} agrees to {OBL} {WHEN}.
The {P} may {RIGHT}, {IF}.
The fee is {AMOUNT} {PER}, payable {DUE}.
Either party may terminate this agreement {NOTICE}.
The {P} shall be liable only for gross negligence and willful misconduct, {IF}.
The {P} shall provide the {P2} with {PROV}.
The cost of {COST} shall be borne by the {P}.
{IF2} the {P} shall {OBL} {WHEN}.
Any amendment to this agreement must be made in writing and signed by both parties.
The {P} shall notify the {P2} of {INFO} {WHEN}.
"""),
        "P": word_bank("Tenant|Landlord|Contractor|Client|Employee|Employer|Buyer|Seller|Service Provider|Customer"),
        "P2": word_bank("Tenant|Landlord|Contractor|Client|Employee|Buyer|Customer"),
        "OBL": word_bank("""
keep the premises in good condition
report any damage promptly
pay the agreed fee on time
keep all business information confidential
perform the services in a professional manner
repaint the interior at reasonable intervals
comply with the house rules
deliver the vehicle free of liens
provide a doctor's note after three days of absence
record working hours electronically
obtain all necessary permits
hold the security deposit in a separate account
return all documents at the end of the term
observe all applicable safety regulations
disclose any outside employment in advance
ventilate and heat the apartment adequately
schedule appointments at least two business days in advance
"""),
        "WHEN": word_bank("throughout the term of this agreement|upon request|within two weeks|"
                          "at the end of each calendar month|before work begins|at handover|"
                          "without undue delay|at its own expense|as required by applicable law"),
        "RIGHT": word_bank("""
terminate this agreement without notice
sublet the premises with prior written consent
require a reasonable advance payment
invoice partial deliveries separately
inspect the premises after giving notice
adjust the fee once per year
engage subcontractors
refuse defective goods
"""),
        "IF": word_bank("unless otherwise agreed|if there is good cause|to the extent permitted by law|"
                        "except in an emergency|after a reasonable cure period has expired|"
                        "if payment is more than sixty days overdue"),
        "IF2": word_bank("Upon request,|In addition,|At the end of the term,|Before the start date,|At the same time,"),
        "PER": word_bank("per month|per hour|as a flat fee|per quarter|per year"),
        "DUE": word_bank("on the first day of each month|within thirty days of invoice|in cash at handover|"
                         "by bank transfer to the account designated by the recipient"),
        "NOTICE": word_bank("with three months' written notice|with thirty days' notice|"
                            "at the end of any calendar quarter|in accordance with the statutory notice periods"),
        "PROV": word_bank("one parking space|all necessary equipment|a storage unit|a company vehicle|"
                          "access to the customer portal|a key to the main entrance|a mobile phone"),
        "COST": word_bank("minor repairs up to $100|travel|interior painting|final inspection|"
                          "vehicle registration|training courses|insurance of the furnishings"),
        "INFO": word_bank("any change of address|any inability to perform|the loss of a key|"
                          "defects in the property|any outside employment|a change of bank details"),
    },
}
CONTRACT_KINDS = {
    "de": (("Mietvertrag über Wohnraum", "Vermieter", word_bank("§ 1 Mietsache|§ 2 Mietzeit|§ 3 Miete und Nebenkosten|"
                                                           "§ 4 Kaution|§ 5 Instandhaltung|§ 6 Tierhaltung|"
                                                           "§ 7 Rückgabe der Mietsache|§ 8 Sonstige Vereinbarungen")),
           ("Arbeitsvertrag", "Arbeitgeber", word_bank("§ 1 Beginn und Tätigkeit|§ 2 Probezeit|§ 3 Arbeitszeit|"
                                                       "§ 4 Vergütung|§ 5 Urlaub|§ 6 Krankheit|§ 7 Verschwiegenheit|"
                                                       "§ 8 Kündigung|§ 9 Schlussbestimmungen")),
           ("Dienstleistungsvertrag", "Auftragnehmer", word_bank("§ 1 Vertragsgegenstand|§ 2 Leistungsumfang|"
                                                              "§ 3 Vergütung|§ 4 Mitwirkungspflichten|§ 5 Haftung|"
                                                              "§ 6 Laufzeit|§ 7 Schlussbestimmungen")),
           ("Kaufvertrag für ein gebrauchtes Kraftfahrzeug", "Verkäufer", word_bank("§ 1 Kaufgegenstand|§ 2 Kaufpreis|"
                                                                               "§ 3 Übergabe|§ 4 Gewährleistung|"
                                                                               "§ 5 Zusicherungen"))),
    "en": (("Residential Lease Agreement", "Landlord", word_bank("1. Premises|2. Term|3. Rent and Utilities|"
                                                            "4. Security Deposit|5. Maintenance|6. Pets|"
                                                            "7. Move-Out|8. Additional Terms")),
           ("Employment Agreement", "Employer", word_bank("1. Position and Duties|2. Probationary Period|"
                                                     "3. Working Hours|4. Compensation|5. Paid Time Off|"
                                                     "6. Sick Leave|7. Confidentiality|8. Termination|9. Miscellaneous")),
           ("Service Agreement", "Contractor", word_bank("1. Scope of Services|2. Deliverables|3. Fees|"
                                                    "4. Client Responsibilities|5. Liability|6. Term|7. General")),
           ("Vehicle Purchase Agreement", "Seller", word_bank("1. Vehicle|2. Purchase Price|3. Delivery|"
                                                         "4. Warranty|5. Seller Representations"))),
}


# Who can appear as a party, per contract kind (nominative, dative), same order as above.
CONTRACT_PARTIES = {
    "de": ((("der Mieter", "die Vermieterin", "der Vermieter"), ("dem Mieter", "der Vermieterin")),
           (("der Arbeitnehmer", "der Arbeitgeber", "die Arbeitnehmerin"), ("dem Arbeitnehmer", "der Arbeitgeberin")),
           (("der Auftragnehmer", "die Auftraggeberin", "der Dienstleister"), ("dem Auftragnehmer", "der Auftraggeberin")),
           (("der Käufer", "die Verkäuferin", "der Verkäufer"), ("dem Käufer", "der Verkäuferin"))),
    "en": ((("Tenant", "Landlord"), ("Tenant", "Landlord")), (("Employee", "Employer"), ("Employee", "Employer")),
           (("Contractor", "Client", "Service Provider"), ("Contractor", "Client")),
           (("Buyer", "Seller"), ("Buyer", "Seller"))),
}


def build_contract(world, rng: Random, lang: str, recipient: dict, created: dt.date):
    k = rng.randrange(len(CONTRACT_KINDS[lang]))
    title, role, sections = CONTRACT_KINDS[lang][k]
    nom, dat = CONTRACT_PARTIES[lang][k]
    bank = dict(CONTRACT[lang], P=nom, P2=dat)
    other = person(rng, lang)
    start = add_days(created, rint(rng, 5, 60))
    hh = world.households[lang]
    if lang == "de":
        lines = [title, "", "zwischen", f"{full_name(other)}, {street_line(rng, lang)}, {city_line(rng, lang)}",
                 f"– nachfolgend „{role}“ genannt –", "und", f"{full_name(recipient)}, {hh['street']}, {hh['city']}",
                 "wird folgender Vertrag geschlossen:"]
    else:
        lines = [title, "", f"This agreement is made on {d_long(created, lang)} between",
                 f"{full_name(other)}, {street_line(rng, lang)}, {city_line(rng, lang)} (the \"{role}\"), and",
                 f"{full_name(recipient)}, {hh['street']}, {hh['city']}."]
    for head in sections:
        sents = unique_sentences(rng, rint(rng, 2, 5), lambda: fill(rng, bank, pick(rng, bank["patterns"]), lang))
        if head == sections[1]:
            sents.insert(0, f"Der Vertrag beginnt am {d_short(start, lang)}." if lang == "de"
                         else f"This agreement commences on {d_long(start, lang)}.")
        lines += ["", head] + wrap(" ".join(sents))
    place = hh["city"].split(" ", 1)[1] if lang == "de" else hh["city"].split(",")[0]
    lines += ["", f"{place}, {d_short(created, lang)}", "", "_______________________     _______________________",
              f"{full_name(other):<28}{full_name(recipient)}"]
    return lines, f"{title} {full_name(other)}", f"{slugify(title)[:30]}_{created:%Y%m%d}.pdf"
