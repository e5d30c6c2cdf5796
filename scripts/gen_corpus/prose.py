"""Free prose from slot patterns over large phrase banks.

Two unrelated letters should share few word 3-grams while staying readable; the
same machinery (fill, unique_sentences) writes contract and manual clauses."""

from __future__ import annotations

import string
from random import Random

from .formatting import money, MONTHS
from .words import LANGS, pick, rint, word_bank


PROSE = {
    "en": {
        "patterns": word_bank("""
{S} {HAS} {PP} {OBJ} {TAIL}.
{OPEN}, {S} {WILL} {INF} {OBJ} {TAIL}.
{THAT} {S} {HAS} {PP} {OBJ}.
Please {INF} {OBJ} {TAIL}.
If you have any questions regarding {OBJ}, please {CONTACT}.
The {ADJ} {NOUN} is {STATE} {TAIL}.
{OBJ} must be {PP} {TAIL}.
{OBJ} will be {PP} {TAIL}.
The amount of {AMOUNT} will be {MONEY}.
Thank you for {GER} {OBJ} {TAIL}.
We kindly ask you to {INF} {OBJ} by {DATE}.
Please find enclosed {OBJ} {FOR}.
{OPEN}, {OBJ} could not be {PP} {TAIL}.
{S} {IS} happy to {INF} {OBJ} {TAIL}.
According to our records, {OBJ} has not yet been {PP}.
Please do not hesitate to contact us if {COND}.
{S} {WILL} {INF} {OBJ} as soon as {COND2}.
In the event that {COND}, {S} {WILL} {INF} {OBJ}.
We have noticed that {OBJ} is {STATE}.
Since {COND2}, {S} {WILL} {INF} {OBJ} {TAIL}.
"""),
        "S": (("we", "have", "are", "will"), ("our office", "has", "is", "will"),
              ("the department", "has", "is", "will"), ("your advisor", "has", "is", "will"),
              ("the committee", "has", "is", "will"), ("the landlord", "has", "is", "will"),
              ("the management", "has", "is", "will"), ("our legal team", "has", "is", "will"),
              ("the school office", "has", "is", "will"), ("the claims team", "has", "is", "will"),
              ("the property manager", "has", "is", "will"), ("our billing team", "has", "is", "will"),
              ("the technician", "has", "is", "will"), ("the city council", "has", "is", "will"),
              ("I", "have", "am", "will"), ("the board", "has", "is", "will"),
              ("the caseworker", "has", "is", "will"), ("our service partner", "has", "is", "will"),
              ("the head teacher", "has", "is", "will"), ("the contractor", "has", "is", "will")),
        "PP": word_bank("reviewed|received|processed|approved|declined|forwarded|updated|scheduled|"
                        "postponed|cancelled|confirmed|examined|recorded|signed|completed|prepared|"
                        "calculated|adjusted|renewed|submitted|archived|investigated|resolved|settled|"
                        "inspected|repaired|replaced|verified|noted|accepted|returned|assessed|"
                        "documented|amended|registered|collected|audited|reimbursed|rescheduled|"
                        "acknowledged|reassigned|itemized|estimated|checked"),
        "INF": word_bank("review|send|process|contact|inspect|repair|replace|confirm|discuss|update|"
                         "reimburse|invoice|schedule|refund|transfer|renew|cancel|verify|settle|"
                         "clarify|return|sign|submit|complete|assess|document|amend|register|collect|"
                         "forward|approve|reconsider|pick up|look into|follow up on|take care of"),
        "GER": word_bank("sending|submitting|returning|confirming|updating|reviewing|paying|"
                         "signing|forwarding|completing|clarifying|reporting"),
        "OBJ": word_bank("""
your application
the enclosed documents
your request of last month
the outstanding balance
the annual statement
your claim for water damage
the heating system
the broken window in the stairwell
the parking permit
the lease extension
the quarterly report
your pension entitlement
the reimbursement form
the medical certificate
the revised schedule
the school trip to the science museum
the insurance certificate
the new contribution rate
the garden maintenance
the estimate for the roof repairs
the security deposit
your change of address
the membership fee
the tax return for last year
the signed contract
the warranty claim
the replacement part
the service appointment
the meter reading
your bank details
the payment plan
the registration certificate
the building permit
the noise complaint
the cleaning schedule
the annual general meeting
the vaccination record
the travel expenses
the overtime hours
the project budget
the delivery note
the credit note
the customer survey
the final invoice
the renovation works
the elevator maintenance
the rent adjustment
the waste collection dates
the minutes of the meeting
the enrolment form
the attendance record
your complaint about the delivery
the damaged fence
the childcare subsidy
the direct debit mandate
your leave request
the parent-teacher conference
the inspection report
the late fee
the updated price list
the proof of income
your account statement
the claim number
the cost estimate
the moving date
the key handover
the smoke detector check
the bicycle storage room
the insulation work
the underground parking space
"""),
        "TAIL": word_bank("""
as agreed on the phone
within the next fourteen days
before the end of the month
at your earliest convenience
in accordance with the terms of your policy
on behalf of all residents
without further delay
as soon as the documents arrive
by the date stated above
in the coming weeks
for the period in question
following our conversation last Tuesday
as required by law
after careful consideration
in full
once again
at no additional cost
until further notice
during the summer holidays
for your records
with immediate effect
in the usual way
by registered mail
as part of the annual review
in cooperation with the local authorities
on the basis of the information provided
where necessary
for the third time this year
ahead of the winter season
before the next billing cycle
at the reception desk
by the end of next week
subject to final approval
in two instalments
on the first working day of the month
"""),
        "ADJ": word_bank("complete|incomplete|outstanding|revised|preliminary|final|annual|monthly|"
                         "necessary|additional|original|current|previous|urgent|detailed|standard|"
                         "reduced|increased|temporary|permanent|corrected|quarterly|signed|pending"),
        "NOUN": word_bank("statement|invoice|repair|payment|appointment|inspection|report|fee|"
                          "deposit|contract|balance|schedule|reading|refund|permit|certificate|"
                          "estimate|reminder|notice|form|agreement|budget|record|claim"),
        "STATE": word_bank("""
available for collection
enclosed with this letter
still under review
no longer valid
attached for your information
overdue
subject to change
ready for signature
due on the date stated
incomplete
expected shortly
currently being processed
on hold
already settled
"""),
        "OPEN": word_bank("Unfortunately|In addition|As you know|As requested|For this reason|"
                          "In the meantime|At the same time|With reference to your letter|"
                          "Following the inspection|As a result|Further to our last letter|"
                          "In view of the circumstances|After reviewing the file|"
                          "As mentioned previously|On a separate note|Regrettably|"
                          "Upon closer examination|As discussed"),
        "THAT": word_bank("Please note that|We are pleased to inform you that|We regret to inform you that|"
                          "We would like to confirm that|This is to let you know that|"
                          "We hereby confirm that|It has come to our attention that|"
                          "We are writing to let you know that"),
        "CONTACT": word_bank("""
call us at the number above
send an email to our service team
visit our office during opening hours
contact your personal advisor
write to the address shown above
use the online contact form
reply to this letter
speak to the caretaker
"""),
        "MONEY": word_bank("""
transferred to your account
debited from your account
credited to your customer account
refunded within ten working days
added to your next invoice
offset against the open balance
paid out in two instalments
"""),
        "FOR": word_bank("for your information|for your records|for signature|with our compliments|"
                         "for review|in duplicate|as requested|for your files"),
        "COND": word_bank("""
you have any further questions
anything is unclear
your circumstances change
the amount is not correct
you wish to appeal this decision
you need more time
the problem persists
you are unable to attend
the documents are incomplete
you have already paid
"""),
        "COND2": word_bank("""
we receive your reply
the repairs are finished
the funds have cleared
the inspection has taken place
the board has met
your documents arrive
the weather permits
the parts are delivered
the payment is confirmed
"""),
    },
    "de": {
        "patterns": word_bank("""
{S} {HAS} {OBJ} {ZEIT} {PP}.
{OPEN} {WILL} {S} {OBJ} {FRIST} {INF}.
{THAT} {S} {OBJ} {ZEIT} {PP} {HAS}.
Bitte senden Sie uns {OBJ} {FRIST} zu.
Bitte prüfen Sie {OBJ} {FRIST}.
Bitte reichen Sie {OBJ} {FRIST} nach.
Bei Fragen zu {DAT} erreichen Sie uns {ERREICH}.
Der Betrag von {AMOUNT} wird {MONEY}.
Vielen Dank für {OBJ}.
{S} {WILL} {OBJ} {FRIST} {INF}.
Wie Sie wissen, {HAS} {S} {OBJ} {ZEIT} {PP}.
Anbei erhalten Sie {OBJ} {FUER}.
{OPEN} {HAS} {S} {OBJ} {ZEIT} {PP}.
Wir bitten Sie, {OBJ} bis zum {DATE} {ZU_INF}.
Sollten {COND}, {KONTAKT}.
Sobald {COND2}, {WILL} {S} {OBJ} {INF}.
Nach unseren Unterlagen haben wir {OBJ} noch nicht {PP}.
Falls Sie Fragen zu {DAT} haben, {KONTAKT}.
Leider konnten wir {OBJ} bisher nicht {INF}.
Wir haben festgestellt, dass der Vorgang zu {DAT} noch {STATE} ist.
"""),
        "S": (("wir", "haben", "sind", "werden"), ("unsere Abteilung", "hat", "ist", "wird"),
              ("der Vermieter", "hat", "ist", "wird"), ("die Hausverwaltung", "hat", "ist", "wird"),
              ("Ihr Berater", "hat", "ist", "wird"), ("das Sachgebiet", "hat", "ist", "wird"),
              ("die Schulleitung", "hat", "ist", "wird"), ("der Vorstand", "hat", "ist", "wird"),
              ("unser Kundenservice", "hat", "ist", "wird"), ("der Gutachter", "hat", "ist", "wird"),
              ("die Schadenabteilung", "hat", "ist", "wird"), ("das Bürgeramt", "hat", "ist", "wird"),
              ("der Techniker", "hat", "ist", "wird"), ("die Buchhaltung", "hat", "ist", "wird"),
              ("ich", "habe", "bin", "werde"), ("die Sachbearbeiterin", "hat", "ist", "wird"),
              ("der Hausmeister", "hat", "ist", "wird"), ("unser Servicepartner", "hat", "ist", "wird"),
              ("die Klassenleitung", "hat", "ist", "wird"), ("die beauftragte Firma", "hat", "ist", "wird")),
        "PP": word_bank("geprüft|erhalten|bearbeitet|genehmigt|abgelehnt|weitergeleitet|aktualisiert|"
                        "eingeplant|verschoben|storniert|bestätigt|untersucht|erfasst|unterschrieben|"
                        "abgeschlossen|vorbereitet|berechnet|angepasst|verlängert|eingereicht|"
                        "archiviert|überprüft|erledigt|beglichen|besichtigt|repariert|ersetzt|"
                        "kontrolliert|notiert|angenommen|zurückgeschickt|bewertet|dokumentiert|"
                        "geändert|registriert|abgeholt|erstattet|neu terminiert|zugestellt|beantwortet"),
        "INF": word_bank("prüfen|zusenden|bearbeiten|erstatten|reparieren|ersetzen|bestätigen|"
                         "besprechen|aktualisieren|überweisen|verlängern|kündigen|klären|nachreichen|"
                         "begleichen|abholen|ausfüllen|unterschreiben|einreichen|zurücksenden|"
                         "weiterleiten|genehmigen|berechnen|dokumentieren|erledigen|vorlegen"),
        "ZU_INF": word_bank("zu prüfen|zuzusenden|auszufüllen|zu unterschreiben|einzureichen|"
                            "zurückzusenden|zu begleichen|zu bestätigen|vorzulegen|nachzureichen"),
        "OBJ": word_bank("""
Ihren Antrag
die beigefügten Unterlagen
Ihr Schreiben vom letzten Monat
den offenen Betrag
die Jahresabrechnung
Ihre Schadenmeldung
die Heizungsanlage
das defekte Fenster im Treppenhaus
den Parkausweis
die Verlängerung des Mietvertrags
den Quartalsbericht
Ihre Rentenansprüche
das Erstattungsformular
die Arbeitsunfähigkeitsbescheinigung
den überarbeiteten Zeitplan
den Schulausflug ins Naturkundemuseum
die Versicherungsbestätigung
den neuen Beitragssatz
die Gartenpflege
den Kostenvoranschlag für die Dachreparatur
die Mietkaution
Ihre Adressänderung
den Mitgliedsbeitrag
die Steuererklärung für das Vorjahr
den unterschriebenen Vertrag
den Garantieanspruch
das Ersatzteil
den Servicetermin
den Zählerstand
Ihre Bankverbindung
die Ratenzahlung
die Meldebescheinigung
die Baugenehmigung
die Beschwerde über Lärm
den Reinigungsplan
die Eigentümerversammlung
den Impfnachweis
die Reisekostenabrechnung
die Überstunden
das Projektbudget
den Lieferschein
die Gutschrift
die Kundenbefragung
die Schlussrechnung
die Renovierungsarbeiten
die Wartung des Aufzugs
die Mieterhöhung
die Abfuhrtermine
das Protokoll der Sitzung
den Aufnahmeantrag
die Anwesenheitsliste
Ihre Reklamation der Lieferung
den beschädigten Gartenzaun
den Zuschuss zur Kinderbetreuung
das Lastschriftmandat
Ihren Urlaubsantrag
den Elternsprechtag
den Prüfbericht
die Mahngebühr
die aktualisierte Preisliste
den Einkommensnachweis
Ihren Kontoauszug
die Schadennummer
die Nebenkostenvorauszahlung
den Umzugstermin
die Schlüsselübergabe
die Rauchmelderprüfung
den Fahrradkeller
die Dämmarbeiten
den Tiefgaragenstellplatz
"""),
        "ZEIT": word_bank("""
bereits
inzwischen
gestern
in der vergangenen Woche
am Montag
wie telefonisch besprochen
nach sorgfältiger Prüfung
fristgerecht
vollständig
erneut
im Auftrag der Eigentümergemeinschaft
auf Grundlage Ihrer Angaben
zum wiederholten Mal
mit sofortiger Wirkung
im Rahmen der jährlichen Überprüfung
gemeinsam mit der Stadtverwaltung
vor Beginn der Heizperiode
während der Sommerferien
ordnungsgemäß
ohne zusätzliche Kosten
nach Rücksprache mit dem Eigentümer
kurzfristig
in zwei Raten
am ersten Werktag des Monats
"""),
        "FRIST": word_bank("""
innerhalb von 14 Tagen
bis zum Ende des Monats
so bald wie möglich
in den nächsten Wochen
bis zur nächsten Sitzung
vor Ablauf der Frist
noch in diesem Quartal
zeitnah
umgehend
bis Ende nächster Woche
nach Eingang Ihrer Zahlung
vor dem nächsten Abrechnungszeitraum
"""),
        "OPEN": word_bank("Leider|Außerdem|Daher|Inzwischen|Zudem|Deshalb|Aus diesem Grund|"
                          "In diesem Zusammenhang|Nach Rücksprache mit der Abteilung|Im Anschluss|"
                          "Gleichzeitig|Darüber hinaus|Nach Prüfung der Unterlagen|Bedauerlicherweise|"
                          "Wie vereinbart|Bei der letzten Begehung"),
        "THAT": word_bank("Wir möchten Sie darauf hinweisen, dass|Hiermit teilen wir Ihnen mit, dass|"
                          "Wir freuen uns, Ihnen mitteilen zu können, dass|"
                          "Leider müssen wir Ihnen mitteilen, dass|Bitte beachten Sie, dass|"
                          "Wir bestätigen Ihnen gern, dass|Uns ist aufgefallen, dass|"
                          "Zu Ihrer Information: Wir weisen darauf hin, dass"),
        "DAT": word_bank("Ihrer Abrechnung|diesem Schreiben|Ihrem Vertrag|den Unterlagen|der Zahlung|"
                         "dem Termin|Ihrem Antrag|der Reparatur|Ihrem Kundenkonto|der Kündigung"),
        "ERREICH": word_bank("""
unter der oben genannten Rufnummer
montags bis freitags von 8 bis 16 Uhr
per E-Mail an unser Serviceteam
während der Sprechzeiten im Bürgerbüro
über das Kontaktformular auf unserer Internetseite
schriftlich unter der oben genannten Anschrift
"""),
        "MONEY": word_bank("""
Ihrem Konto gutgeschrieben
von Ihrem Konto abgebucht
mit der nächsten Rechnung verrechnet
in den nächsten Tagen überwiesen
Ihrem Kundenkonto gutgeschrieben
in zwei Raten ausgezahlt
mit dem offenen Saldo verrechnet
"""),
        "FUER": word_bank("zur Kenntnisnahme|für Ihre Unterlagen|mit der Bitte um Unterschrift|"
                          "zur weiteren Veranlassung|zur Prüfung|in zweifacher Ausfertigung|"
                          "wie gewünscht|zum Verbleib bei Ihnen"),
        "STATE": word_bank("offen|unvollständig|in Bearbeitung|nicht unterschrieben|ausstehend|"
                           "ungeklärt|nicht bezahlt|zurückgestellt"),
        "COND": word_bank("""
Sie weitere Fragen haben
Sie Rückfragen haben
sich Ihre Verhältnisse ändern
die Beträge nicht stimmen
Sie mehr Zeit benötigen
die Probleme weiterhin bestehen
Sie den Termin nicht wahrnehmen können
die Unterlagen unvollständig sein
Sie bereits bezahlt haben
Sie mit der Entscheidung nicht einverstanden sein
Ihnen Fehler auffallen
"""),
        "KONTAKT": word_bank("""
wenden Sie sich bitte an Ihren Ansprechpartner
rufen Sie uns gern an
melden Sie sich bitte schriftlich bei uns
sprechen Sie uns jederzeit an
schreiben Sie uns bitte eine kurze Nachricht
"""),
        "COND2": word_bank("""
uns Ihre Antwort vorliegt
die Reparatur abgeschlossen ist
die Zahlung eingegangen ist
die Besichtigung stattgefunden hat
der Vorstand getagt hat
Ihre Unterlagen eingegangen sind
das Wetter es zulässt
die Ersatzteile geliefert sind
"""),
    },
}


_SLOT_CACHE: dict[str, tuple[str, ...]] = {}


def _slots(pattern: str) -> tuple[str, ...]:
    """Placeholder names of a pattern, parsed once."""
    slots = _SLOT_CACHE.get(pattern)
    if slots is None:
        slots = _SLOT_CACHE[pattern] = tuple(f for _, f, _, _ in string.Formatter().parse(pattern) if f)
    return slots


PATTERN_SLOTS = {lang: [(p, _slots(p)) for p in PROSE[lang]["patterns"]] for lang in LANGS}


def sentence(rng: Random, lang: str, topic: tuple[str, ...] = ()) -> str:
    """One sentence; `topic` objects are mixed in so a letter stays on its subject."""
    bank = PROSE[lang]
    pattern, slots = pick(rng, PATTERN_SLOTS[lang])
    subj = pick(rng, bank["S"])
    vals = {}
    for slot in slots:
        if slot == "S":
            vals[slot] = subj[0]
        elif slot == "HAS":
            vals[slot] = subj[1]
        elif slot == "IS":
            vals[slot] = subj[2]
        elif slot == "WILL":
            vals[slot] = subj[3]
        elif slot == "OBJ":
            vals[slot] = pick(rng, topic) if topic and rng.random() < 0.5 else pick(rng, bank["OBJ"])
        elif slot == "AMOUNT":
            vals[slot] = money(rint(rng, 500, 250000) / 100, lang)
        elif slot == "DATE":
            vals[slot] = f"{rint(rng, 1, 28)}. {pick(rng, MONTHS[lang])}" if lang == "de" else \
                f"{pick(rng, MONTHS[lang])} {rint(rng, 1, 28)}"
        else:
            vals[slot] = pick(rng, bank[slot])
    text = pattern.format(**vals)
    return text[0].upper() + text[1:]


def paragraph(rng: Random, lang: str, topic: tuple[str, ...] = (), n: int | None = None) -> str:
    return " ".join(sentence(rng, lang, topic) for _ in range(n or rint(rng, 2, 5)))


def fill(rng: Random, bank: dict, pattern: str, lang: str, extra: dict | None = None) -> str:
    vals = dict(extra or {})
    for slot in _slots(pattern):
        if slot in vals:
            continue
        if slot == "AMOUNT":
            vals[slot] = money(rint(rng, 5000, 450000) / 100, lang)
        else:
            vals[slot] = pick(rng, bank[slot])
    text = pattern.format(**vals)
    return text[0].upper() + text[1:]


def unique_sentences(rng: Random, n: int, make) -> list[str]:
    """n sentences from `make`, skipping repeats (fixed-text patterns come up often)."""
    out: list[str] = []
    for _ in range(n + 4):
        s = make()
        if s not in out:
            out.append(s)
        if len(out) == n:
            break
    return out
