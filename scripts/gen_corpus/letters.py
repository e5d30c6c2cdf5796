"""Free-form letters; some go to several people ("same letter to two people")."""

from __future__ import annotations

import datetime as dt
from random import Random

from .formatting import add_days, d_long, d_short, phone, wrap
from .people import (BRANDS, city_line, FIRST_F, FIRST_M, full_name, LAST, person, recipient_block, salutation,
                     street_line, STREETS, TOWNS)
from .prose import paragraph
from .words import pick, rint, UPPER, word_bank


LETTER_SENDERS = {
    "de": {
        "insurance": (("{brand} Versicherung AG", "Schadenabteilung"),
                      word_bank("Ihre Schadenmeldung vom {date}|Ihr Versicherungsvertrag {ref}|"
                                "Beitragsanpassung zum {date}|Rückfragen zu Ihrem Leistungsantrag|"
                                "Kündigungsbestätigung Vertrag {ref}"),
                      word_bank("den Schadenfall|die Reparaturrechnung|das Gutachten|die Regulierung|"
                                "den Selbstbehalt|die Fotos vom Schaden|den Kostenvoranschlag der Werkstatt")),
        "landlord": (("Hausverwaltung {last} GmbH", "Objektbetreuung"),
                     word_bank("Nebenkostenabrechnung {year}|Ankündigung von Instandhaltungsarbeiten|"
                               "Einladung zur Eigentümerversammlung|Wartung der Rauchwarnmelder|"
                               "Sperrung der Tiefgarage|Austausch der Wasserzähler"),
                     word_bank("die Hausordnung|den Hausmeisterdienst|die Treppenhausreinigung|"
                               "die Heizkostenverteilung|den Winterdienst|die Fassadensanierung|die Müllräume")),
        "school": (("Grundschule am {park}", "Schulleitung"),
                   word_bank("Elternbrief: Klassenfahrt nach {town}|Einladung zum Elternabend|"
                             "Informationen zum Schuljahresbeginn|Projektwoche|Schulfest am {date}"),
                   word_bank("die Einverständniserklärung|das Busgeld|die Schulbücher|die Betreuungszeiten|"
                             "den Wandertag|die Hausaufgabenbetreuung|das Mittagessen in der Mensa")),
        "authority": (("Stadt {town} – Bürgeramt", "Sachgebiet Meldewesen"),
                      word_bank("Anforderung von Unterlagen|Ihr Antrag vom {date}|Anhörung|"
                                "Bescheid über Grundbesitzabgaben|Erinnerung: Ablauf Ihres Personalausweises"),
                      word_bank("den Personalausweis|die Wohnungsgeberbestätigung|die Grundsteuer|"
                                "die Hundesteuer|den Gebührenbescheid|die Sondernutzungserlaubnis")),
        "employer": (("{brand} Logistik GmbH", "Personalabteilung"),
                     word_bank("Bestätigung Ihres Urlaubsantrags|Änderung Ihrer Arbeitszeit|"
                               "Einladung zum Mitarbeitergespräch|Arbeitgeberbescheinigung|"
                               "Betriebliche Altersvorsorge"),
                     word_bank("die Zeiterfassung|das Jobticket|die Entgeltumwandlung|den Dienstwagen|"
                               "die Fortbildung|die Homeoffice-Regelung")),
        "doctor": (("Praxis Dr. med. {last}", "Allgemeinmedizin"),
                   word_bank("Befundbericht|Terminerinnerung|Ihre Laborwerte vom {date}|Überweisung an Facharzt"),
                   word_bank("die Blutwerte|die Überweisung|das Rezept|die Vorsorgeuntersuchung|"
                             "den Impfstatus|die Krankenversichertenkarte")),
        "club": (("Sportverein {town} e.V.", "Der Vorstand"),
                 word_bank("Einladung zur Mitgliederversammlung|Beitragserhöhung ab {year}|"
                           "Vereinsausflug|Neue Trainingszeiten"),
                 word_bank("den Vereinsbeitrag|die Hallenzeiten|das Sommerfest|die Trainerlizenz|"
                           "die Jugendabteilung|den Kassenbericht")),
        "private": (("{first} {last}", ""),
                    word_bank("Kündigung meines Vertrags|Widerspruch gegen Ihre Rechnung {ref}|"
                              "Anfrage|Mängelanzeige|Bitte um Rückruf"),
                    word_bank("die Rechnung|den Vertrag|die Mängel|die Rückzahlung|meine Kündigung")),
    },
    "en": {
        "insurance": (("{brand} Mutual Insurance", "Claims Department"),
                      word_bank("Your claim dated {date}|Policy {ref}|Premium adjustment effective {date}|"
                                "Request for additional information|Cancellation confirmation {ref}"),
                      word_bank("the claim file|the repair invoice|the adjuster report|the settlement offer|"
                                "the deductible|the photos of the damage|the body shop estimate")),
        "landlord": (("{last} Property Management", "Resident Services"),
                     word_bank("Annual utility reconciliation {year}|Notice of scheduled maintenance|"
                               "Invitation to the owners' meeting|Smoke detector inspection|"
                               "Parking garage closure|Water meter replacement"),
                     word_bank("the house rules|the maintenance request|the hallway cleaning|"
                               "the heating cost allocation|the snow removal|the facade renovation|the trash room")),
        "school": (("{town} Elementary School", "Principal's Office"),
                   word_bank("Field trip to {town}|Parent-teacher conference|Back to school information|"
                             "Project week|School fair on {date}"),
                   word_bank("the permission slip|the bus fee|the textbooks|the after-school program|"
                             "the class trip|the homework club|the lunch program")),
        "authority": (("City of {town} - Clerk's Office", "Records Division"),
                      word_bank("Request for documents|Your application dated {date}|Notice of hearing|"
                                "Property tax statement|Reminder: license renewal"),
                      word_bank("the identity documents|the proof of residence|the property tax|"
                                "the dog license|the fee statement|the sidewalk permit")),
        "employer": (("{brand} Logistics LLC", "Human Resources"),
                     word_bank("Approval of your leave request|Change in your working hours|"
                               "Performance review invitation|Employment verification|Retirement plan enrollment"),
                     word_bank("the time sheet|the commuter benefit|the salary deferral|the company car|"
                               "the training course|the remote work policy")),
        "doctor": (("{last} Family Medicine", "Patient Services"),
                   word_bank("Lab results|Appointment reminder|Referral to specialist|Your visit on {date}"),
                   word_bank("the blood work|the referral|the prescription|the annual physical|"
                             "the immunization record|the insurance card")),
        "club": (("{town} Sports Club", "Board of Directors"),
                 word_bank("Invitation to the annual meeting|Membership dues {year}|Club outing|New training schedule"),
                 word_bank("the membership dues|the gym schedule|the summer party|the coaching license|"
                           "the youth program|the treasurer report")),
        "private": (("{first} {last}", ""),
                    word_bank("Cancellation of my contract|Dispute of invoice {ref}|Inquiry|Notice of defects|"
                              "Request for a call back"),
                    word_bank("the invoice|the contract|the defects|the refund|my cancellation")),
    },
}
CIRCULAR_SENDERS = ("landlord", "school", "club", "authority")


def letter_body(world, rng: Random, lang: str) -> dict:
    """Everything of a letter that does not depend on who receives it."""
    cat = pick(rng, tuple(LETTER_SENDERS[lang]))
    (org, dept), subjects, topic = LETTER_SENDERS[lang][cat]
    fill = dict(brand=pick(rng, BRANDS), last=pick(rng, LAST[lang]), town=pick(rng, TOWNS[lang]),
                first=pick(rng, FIRST_M[lang] + FIRST_F[lang]), park=pick(rng, STREETS["de"][0]) + "park")
    sender = org.format(**fill)
    signer = person(rng, lang)
    subject = pick(rng, subjects).format(date="{date}", ref=f"{rint(rng, 100, 999)}-{rint(rng, 10000, 99999)}",
                                          year="{year}", town=pick(rng, TOWNS[lang]))
    body = []
    for _ in range(pick(rng, (1, 2, 2, 3, 3, 4, 5, 6))):
        body.append(paragraph(rng, lang, topic))
    head = [sender] + ([dept] if dept else []) + [street_line(rng, lang), city_line(rng, lang, fill["town"]),
                                                  ("Tel. " if lang == "de" else "Phone ") + phone(rng, lang)]
    return dict(cat=cat, sender=sender, head=head, subject=subject, body=body, signer=signer,
                dept=dept, ref=f"{pick(rng, UPPER)}{pick(rng, UPPER)}/{rint(rng, 100, 9999)}",
                annex=rng.random() < 0.3)


def build_letter(world, rng: Random, lang: str, body: dict, recipient: dict, created: dt.date):
    subject = body["subject"].replace("{date}", d_short(add_days(created, -rint(rng, 3, 40)), lang)) \
        .replace("{year}", str(created.year - (created.month < 7)))
    lines = list(body["head"]) + [""] + recipient_block(world, recipient, lang) + [""]
    if lang == "de":
        lines += [f"{body['head'][-2].split(' ', 1)[1]}, {d_long(created, lang)}", "",
                  f"Unser Zeichen: {body['ref']}", "", subject, "", salutation(recipient, lang)]
    else:
        lines += [d_long(created, lang), "", f"Our ref: {body['ref']}", "", f"Re: {subject}", "",
                  salutation(recipient, lang)]
    for par in body["body"]:
        lines += wrap(par) + [""]
    lines += ["Mit freundlichen Grüßen" if lang == "de" else "Sincerely,", "", full_name(body["signer"])]
    if body["dept"]:
        lines.append(body["dept"])
    if body["annex"]:
        lines += ["", "Anlagen" if lang == "de" else "Enclosures"]
    return lines, subject
