"""Terms and conditions: every document of a family is a new edition.

Consecutive editions share most clauses; a few are reworded or get new numbers."""

from __future__ import annotations

from random import Random

from ..formatting import d_long, money, slugify, wrap
from ..words import pick, rint, word_bank
from .family import Family, setup_common


TERMS = {
    "de": {
        "§ 1 Geltungsbereich": word_bank("""
Diese Allgemeinen Geschäftsbedingungen gelten für alle Verträge zwischen der {V} und ihren Kunden.
Abweichende Bedingungen des Kunden werden nicht anerkannt, es sei denn, die {V} stimmt ihrer Geltung ausdrücklich zu.
Maßgeblich ist die zum Zeitpunkt der Bestellung gültige Fassung dieser Bedingungen.
Diese Bedingungen gelten auch für alle künftigen Geschäftsbeziehungen, auch wenn sie nicht nochmals ausdrücklich vereinbart werden.
Verbraucher im Sinne dieser Bedingungen ist jede natürliche Person, die ein Rechtsgeschäft zu privaten Zwecken abschließt.
"""),
        "§ 2 Vertragsschluss": word_bank("""
Der Vertrag kommt mit der Bestätigung der Bestellung durch die {V} zustande.
Die Darstellung der Leistungen im Internet stellt kein rechtlich bindendes Angebot dar.
Die {V} kann die Annahme eines Auftrags ohne Angabe von Gründen ablehnen.
Der Kunde erhält nach Eingang seiner Bestellung eine Eingangsbestätigung per E-Mail.
Der Vertragstext wird von der {V} gespeichert und dem Kunden auf Wunsch zugesandt.
"""),
        "§ 3 Preise und Zahlung": word_bank("""
Die monatliche Grundgebühr beträgt {M} und ist jeweils im Voraus fällig.
Für jede Rücklastschrift, die der Kunde zu vertreten hat, berechnet die {V} eine Pauschale von {M}.
Rechnungen sind innerhalb von {D} Tagen nach Zugang ohne Abzug zu zahlen.
Die {V} ist berechtigt, die Preise mit einer Ankündigungsfrist von {N} Wochen anzupassen.
Alle Preise verstehen sich einschließlich der gesetzlichen Umsatzsteuer.
Gerät der Kunde mit mehr als {N} Monatsentgelten in Verzug, kann die {V} die Leistung sperren.
Für die Entsperrung des Zugangs wird ein Entgelt von {M} erhoben.
"""),
        "§ 4 Laufzeit und Kündigung": word_bank("""
Die Mindestvertragslaufzeit beträgt {N} Monate.
Nach Ablauf der Mindestlaufzeit verlängert sich der Vertrag auf unbestimmte Zeit und kann mit einer Frist von {N} Wochen gekündigt werden.
Das Recht zur außerordentlichen Kündigung aus wichtigem Grund bleibt unberührt.
Die Kündigung bedarf der Textform.
Im Falle einer Preiserhöhung steht dem Kunden ein Sonderkündigungsrecht zum Zeitpunkt des Inkrafttretens zu.
"""),
        "§ 5 Widerrufsrecht": word_bank("""
Der Kunde hat das Recht, binnen vierzehn Tagen ohne Angabe von Gründen diesen Vertrag zu widerrufen.
Die Widerrufsfrist beträgt vierzehn Tage ab dem Tag des Vertragsabschlusses.
Um das Widerrufsrecht auszuüben, genügt eine eindeutige Erklärung gegenüber der {V}.
Im Falle eines wirksamen Widerrufs werden alle Zahlungen unverzüglich, spätestens binnen {D} Tagen, erstattet.
"""),
        "§ 6 Haftung": word_bank("""
Die {V} haftet unbeschränkt für Vorsatz und grobe Fahrlässigkeit.
Für leichte Fahrlässigkeit haftet die {V} nur bei Verletzung wesentlicher Vertragspflichten.
Die Haftung ist in diesen Fällen auf den vorhersehbaren Schaden begrenzt, höchstens jedoch auf {M}.
Die Haftung nach dem Produkthaftungsgesetz bleibt unberührt.
Für den Verlust von Daten haftet die {V} nur, soweit der Kunde regelmäßige Sicherungen durchgeführt hat.
"""),
        "§ 7 Pflichten des Kunden": word_bank("""
Der Kunde ist verpflichtet, seine Zugangsdaten geheim zu halten und vor dem Zugriff Dritter zu schützen.
Der Kunde informiert die {V} unverzüglich über Änderungen seiner Anschrift oder Bankverbindung.
Der Kunde darf die Leistungen nicht missbräuchlich oder für rechtswidrige Zwecke nutzen.
Mängel sind der {V} unverzüglich nach ihrer Entdeckung anzuzeigen.
Der Kunde stellt sicher, dass die technischen Voraussetzungen für die Nutzung der Dienste erfüllt sind.
"""),
        "§ 8 Datenschutz": word_bank("""
Personenbezogene Daten werden ausschließlich im Rahmen der geltenden Datenschutzgesetze verarbeitet.
Einzelheiten regelt die Datenschutzerklärung der {V} in der jeweils aktuellen Fassung.
Die {V} kann sich zur Erbringung der Leistungen sorgfältig ausgewählter Dienstleister bedienen.
Bonitätsauskünfte werden nur eingeholt, soweit dies zur Vertragsdurchführung erforderlich ist.
"""),
        "§ 9 Änderungen der Bedingungen": word_bank("""
Änderungen dieser Bedingungen werden dem Kunden mindestens {N} Wochen vor ihrem Inkrafttreten in Textform mitgeteilt.
Widerspricht der Kunde nicht innerhalb von {N} Wochen, gelten die Änderungen als genehmigt.
Auf die Folgen eines unterlassenen Widerspruchs wird die {V} in der Mitteilung gesondert hinweisen.
"""),
        "§ 10 Schlussbestimmungen": word_bank("""
Erfüllungsort und Gerichtsstand ist, soweit gesetzlich zulässig, {T}.
Es gilt das Recht der Bundesrepublik Deutschland unter Ausschluss des UN-Kaufrechts.
Sollte eine Bestimmung dieser Bedingungen unwirksam sein, bleibt die Wirksamkeit der übrigen Bestimmungen unberührt.
Die {V} nimmt an Streitbeilegungsverfahren vor einer Verbraucherschlichtungsstelle nicht teil.
Gutscheine sind {N} Jahre ab Ausstellung gültig und können nicht in bar ausgezahlt werden.
"""),
    },
    "en": {
        "1. Scope": word_bank("""
These Terms of Service govern all agreements between {V} and its customers.
Any conflicting terms proposed by the customer are rejected unless {V} expressly agrees to them in writing.
The version of these terms in effect at the time of your order applies.
By creating an account or using the services, you agree to be bound by these terms.
"""),
        "2. Your Account": word_bank("""
You must be at least 18 years old to open an account.
You are responsible for keeping your password confidential and for all activity under your account.
Notify {V} immediately of any unauthorized use of your account.
{V} may suspend accounts that provide false or incomplete information.
You agree to keep your contact and billing information current.
"""),
        "3. Fees and Payment": word_bank("""
The monthly service fee is {M} and is billed in advance.
A returned payment fee of {M} applies to each declined or reversed payment.
Invoices are due within {D} days of the invoice date.
{V} may change its prices with at least {N} weeks' notice.
Late payments accrue interest at the lesser of 1.5% per month or the maximum rate permitted by law.
If your account is more than {N} months past due, {V} may suspend the services.
A reconnection fee of {M} applies after suspension.
"""),
        "4. Term and Termination": word_bank("""
The minimum term of the agreement is {N} months.
After the minimum term, the agreement renews month to month until cancelled with {N} weeks' notice.
Either party may terminate for material breach that is not cured within {D} days of notice.
You may cancel at any time through your account settings or by contacting customer support.
Early termination fees do not apply if {V} increases its prices during the minimum term.
"""),
        "5. Cancellation Right": word_bank("""
You may cancel your order within fourteen days without giving any reason.
Refunds will be issued within {D} days of receiving your cancellation notice.
To exercise the right to cancel, you must inform {V} of your decision by a clear statement.
"""),
        "6. Limitation of Liability": word_bank("""
{V} is not liable for indirect, incidental or consequential damages.
In no event shall the total liability of {V} exceed {M}.
Nothing in these terms limits liability for fraud, gross negligence or willful misconduct.
The services are provided as is and as available, without warranties of any kind.
{V} is not responsible for data loss where you have not kept regular backups.
"""),
        "7. Acceptable Use": word_bank("""
You may not use the services for any unlawful purpose or in violation of these terms.
You may not attempt to gain unauthorized access to any part of the services.
Reselling the services without written permission from {V} is prohibited.
{V} may remove content that violates these terms without prior notice.
"""),
        "8. Privacy": word_bank("""
Personal information is processed in accordance with the {V} Privacy Policy.
{V} may use carefully selected service providers to deliver the services.
Credit checks are performed only where necessary to open or maintain your account.
"""),
        "9. Changes to These Terms": word_bank("""
{V} will notify you of material changes at least {N} weeks before they take effect.
Continued use of the services after the effective date constitutes acceptance of the revised terms.
If you do not agree to the changes, you may terminate the agreement before the effective date.
"""),
        "10. Governing Law": word_bank("""
These terms are governed by the laws of the State of {T}.
Any dispute shall be resolved by binding arbitration on an individual basis.
If any provision is held unenforceable, the remaining provisions remain in full force and effect.
Gift cards are valid for {N} years from the date of issue and cannot be redeemed for cash.
"""),
    },
}
US_STATE_NAMES = word_bank("Delaware|New York|California|Texas|Washington|Illinois|Ohio|Oregon|Colorado")


def terms_clause(rng: Random, lang: str, tpl: str, f: Family) -> str:
    return tpl.format(V=f.vendor, N=pick(rng, (2, 3, 4, 6, 12, 24)), D=pick(rng, (7, 10, 14, 30)),
                      M=money(pick(rng, (4.95, 9.9, 14.9, 19.99, 25, 50, 500, 2500)), lang, "EUR"),
                      T=f.town if lang == "de" else pick(rng, US_STATE_NAMES))


def setup_terms(world, f, frng):
    setup_common(world, f, frng)
    sections = []
    for head, bank in TERMS[f.lang].items():
        picks = frng.sample(bank, frng.randint(2, min(4, len(bank))))
        sections.append([head, [terms_clause(frng, f.lang, t, f) for t in picks]])
    f.state.update(sections=sections, edition=0)


def build_terms(world, f, rng, created):
    lang, st = f.lang, f.state
    st["edition"] += 1
    if st["edition"] > 1:  # a new edition rewrites one to three clauses
        for _ in range(rint(rng, 1, 3)):
            head, clauses = pick(rng, st["sections"])
            tpl = pick(rng, TERMS[lang][head])
            clauses[rng.randrange(len(clauses))] = terms_clause(rng, lang, tpl, f)
    ed = st["edition"]
    if lang == "de":
        lines = [f"Allgemeine Geschäftsbedingungen der {f.vendor}", f"Stand: {d_long(created, lang)} (Fassung {ed}.0)"]
    else:
        lines = [f"{f.vendor} Terms of Service", f"Effective {d_long(created, lang)} - Version {ed}.0"]
    for head, clauses in st["sections"]:
        lines += ["", head] + wrap(" ".join(clauses))
    lines += ["", f.fixed["head"][0], *f.fixed["head"][1:3]]
    label = "AGB" if lang == "de" else "Terms of Service"
    title = f"{label} {f.vendor} {created.year}" if f.fixed["title_style"] else f"{f.vendor} {label} v{ed}"
    return lines, title, f"{slugify(f.vendor)}_{slugify(label)}_v{ed}.pdf"
