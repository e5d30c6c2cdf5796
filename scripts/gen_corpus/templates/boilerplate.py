"""Fixed sentences per (family kind, language): notes, legal and appeal texts.

A family draws a few once (setup_common), so its documents repeat them verbatim."""

from __future__ import annotations

from ..words import word_bank


BOILER = {
    ("utility", "de"): word_bank("""
Die Abschlagszahlungen für den kommenden Abrechnungszeitraum haben wir auf Grundlage Ihres bisherigen Verbrauchs neu berechnet.
Bitte prüfen Sie die angegebenen Zählerstände und teilen Sie uns Abweichungen innerhalb von vier Wochen mit.
Informationen zu unserem Energiemix und zur Herkunft der gelieferten Energie finden Sie auf der Rückseite dieser Rechnung.
Bei Fragen zu Ihrer Rechnung erreichen Sie unseren Kundenservice montags bis freitags von 8 bis 18 Uhr.
Zur Beilegung von Streitigkeiten können Sie ein Schlichtungsverfahren bei der Schlichtungsstelle Energie beantragen.
Ihre Zählerstände können Sie bequem online in unserem Kundenportal übermitteln.
Der Grundpreis wird taggenau für den Abrechnungszeitraum berechnet.
Im Rechnungsbetrag sind die Energiesteuer, die Konzessionsabgabe sowie die gesetzlichen Umlagen enthalten.
Wenn Sie Ihre Bankverbindung ändern möchten, teilen Sie uns dies bitte rechtzeitig schriftlich mit.
Einen Vergleich Ihres Verbrauchs mit dem Vorjahr finden Sie in Ihrem Kundenkonto.
Energiespartipps und aktuelle Förderprogramme finden Sie auf unserer Internetseite.
Bitte geben Sie bei Überweisungen stets Ihre Vertragskontonummer an.
"""),
    ("utility", "en"): word_bank("""
Your next meter reading is scheduled for the first week of the coming month.
To avoid late fees, please make sure your payment reaches us by the due date shown above.
You can view your usage history and pay your bill online through our customer portal.
If you are having trouble paying your bill, please contact us to discuss payment arrangements.
Budget billing spreads your energy costs evenly over twelve months.
Report outages or downed power lines immediately by calling our emergency line.
The delivery charge covers the cost of maintaining the local distribution network.
Rates are subject to approval by the state public utility commission.
Enroll in paperless billing and automatic payments to save time and postage.
Please include your account number on your check or money order.
A late payment charge of 1.5% per month may be applied to past due balances.
Compare your usage with the same month last year in the chart on our website.
"""),
    ("telecom", "de"): word_bank("""
Ihre Einzelverbindungsübersicht finden Sie im Kundencenter unter Rechnungen.
Der Rechnungsbetrag wird frühestens fünf Tage nach Zugang dieser Rechnung von Ihrem Konto abgebucht.
Beanstandungen dieser Rechnung richten Sie bitte innerhalb von acht Wochen nach Zugang an uns.
Ihr Vertrag verlängert sich nach Ablauf der Mindestlaufzeit auf unbestimmte Zeit und ist monatlich kündbar.
Informationen zu Ihrem Datenvolumen und zu verfügbaren Zusatzoptionen erhalten Sie in unserer App.
Bei Zahlungsverzug erheben wir eine Mahngebühr sowie die Kosten einer Rücklastschrift.
Alle Preise enthalten die gesetzliche Umsatzsteuer.
Störungen melden Sie bitte rund um die Uhr über unsere kostenlose Hotline.
"""),
    ("telecom", "en"): word_bank("""
Your itemized call details are available in the online account center.
Your payment will be drafted from your bank account on or after the due date.
Please notify us of any billing dispute within 60 days of the statement date.
Your plan renews automatically each month unless you cancel before the renewal date.
Check your remaining data allowance and available add-ons in our mobile app.
A late fee of $5.00 applies to balances not paid by the due date.
Taxes, surcharges and regulatory fees are included in the total shown.
Report service interruptions any time by calling our toll-free support line.
"""),
    ("payslip", "de"): word_bank("""
Bitte prüfen Sie Ihre Abrechnung und wenden Sie sich bei Unstimmigkeiten an die Personalabteilung.
Diese Abrechnung gilt als Verdienstbescheinigung und ist sorgfältig aufzubewahren.
Die Auszahlung erfolgt zum letzten Bankarbeitstag des Monats.
Änderungen Ihrer Steuermerkmale werden automatisch aus der ELStAM-Datenbank übernommen.
"""),
    ("payslip", "en"): word_bank("""
Please review this statement and report any discrepancies to Human Resources.
Keep this statement for your records; it serves as proof of earnings.
Direct deposit funds are available on the pay date shown above.
Changes to your withholding elections take effect on the next regular pay date.
"""),
    ("bank", "de"): word_bank("""
Bitte prüfen Sie die Buchungen und den Kontostand. Einwendungen sind innerhalb von sechs Wochen nach Zugang zu erheben.
Guthaben sind als Einlagen nach Maßgabe des Einlagensicherungsgesetzes entschädigungsfähig.
Der Rechnungsabschluss gilt als genehmigt, wenn Sie nicht innerhalb von sechs Wochen widersprechen.
Die Entgelte für die Kontoführung finden Sie im aktuellen Preis- und Leistungsverzeichnis.
Ihre Kontoauszüge stehen Ihnen zusätzlich im Online-Banking als PDF zur Verfügung.
"""),
    ("bank", "en"): word_bank("""
Please examine this statement promptly and report any errors within 60 days.
Deposits are insured up to the maximum amount allowed by law.
For questions about electronic transfers, call us or write to the address shown on this statement.
Monthly maintenance fees are waived when you keep the minimum daily balance.
Statements are also available as PDF files in online banking.
"""),
    ("insurance", "de"): word_bank("""
Bei einer Erhöhung des Beitrags steht Ihnen ein Sonderkündigungsrecht innerhalb eines Monats nach Zugang dieser Mitteilung zu.
Bitte prüfen Sie, ob die Versicherungssumme noch Ihrem aktuellen Bedarf entspricht.
Ein Schadenfall kann rund um die Uhr telefonisch oder online gemeldet werden.
Es gelten die Allgemeinen Versicherungsbedingungen in der Ihrem Vertrag zugrunde liegenden Fassung.
Der Beitrag ist am Fälligkeitstag zu zahlen; bei Lastschrift buchen wir ihn automatisch ab.
Dieses Schreiben ersetzt den bisherigen Nachtrag zum Versicherungsschein.
"""),
    ("insurance", "en"): word_bank("""
If your premium increases, you may cancel your policy within thirty days of receiving this notice.
Please review your coverage limits to make sure they still meet your needs.
Claims can be reported around the clock by phone or online.
All other terms and conditions of your policy remain unchanged.
Premiums paid by automatic withdrawal will be deducted on the due date.
This declaration page replaces any previous declaration for the same policy period.
"""),
    ("invoice", "de"): word_bank("""
Vielen Dank für Ihren Auftrag.
Bitte geben Sie bei Zahlung die Rechnungsnummer an.
Die gelieferte Ware bleibt bis zur vollständigen Bezahlung unser Eigentum.
Leistungszeitraum entspricht dem Rechnungsdatum, sofern nicht anders angegeben.
Wir freuen uns auf eine weitere gute Zusammenarbeit.
Die Rechnung enthält Lohnkosten, die Sie gemäß § 35a EStG steuerlich geltend machen können.
"""),
    ("invoice", "en"): word_bank("""
Thank you for your business.
Please reference the invoice number with your payment.
Goods remain our property until paid in full.
A finance charge of 1.5% per month applies to overdue accounts.
We appreciate your prompt payment.
All work is guaranteed for twelve months from the date of completion.
"""),
    ("tax", "de"): word_bank("""
Die Festsetzung ist nach § 165 Abs. 1 Satz 2 AO teilweise vorläufig.
Bei der Ermittlung der Einkünfte wurden die Werbungskosten in der erklärten Höhe berücksichtigt.
Die Aufwendungen für haushaltsnahe Dienstleistungen konnten nur teilweise anerkannt werden.
Der Bescheid ist nach § 164 AO nicht mehr vorbehaltlich der Nachprüfung ergangen.
Aufwendungen für das häusliche Arbeitszimmer wurden mit der Tagespauschale berücksichtigt.
Bitte bewahren Sie diesen Bescheid zusammen mit Ihren Unterlagen auf.
Die Kirchensteuer wurde nach dem für Ihren Wohnsitz maßgebenden Kirchensteuersatz berechnet.
Der Erstattungsbetrag wird auf das angegebene Konto überwiesen.
"""),
    ("tax", "en"): word_bank("""
This notice reflects changes made to your return based on information reported by third parties.
Your deductions were allowed as claimed.
The education credit was reduced because of the income limitation.
If you agree with this notice, no further action is needed.
Interest is charged on unpaid tax from the original due date until the date of full payment.
Keep this notice for your records.
Your refund will be deposited to the account shown on your return.
Estimated tax payments were applied as reported.
"""),
}
LEGAL = {  # appeal instructions; each office words them a little differently
    "de": word_bank("""
Rechtsbehelfsbelehrung: Dieser Bescheid kann mit dem Einspruch angefochten werden.
Der Einspruch ist beim Finanzamt schriftlich einzureichen, diesem elektronisch zu übermitteln oder dort zur Niederschrift zu erklären.
Die Frist für die Einlegung des Einspruchs beträgt einen Monat.
Sie beginnt mit Ablauf des Tages, an dem Ihnen dieser Bescheid bekannt gegeben worden ist.
Ein Einspruch hemmt die Vollziehung des angefochtenen Bescheids nicht.
Bei Übermittlung durch die Post gilt der Bescheid am dritten Tag nach der Aufgabe zur Post als bekannt gegeben.
Wenn Sie einen Einspruch einlegen, geben Sie bitte die Steuernummer und das Datum dieses Bescheids an.
"""),
    "en": word_bank("""
Your appeal rights: If you disagree with this notice, you may request a conference with an appeals officer within 30 days.
You may also file a petition with the tax court within 90 days from the date of this notice.
Interest and penalties continue to accrue on any unpaid balance while your appeal is pending.
To request a payment plan, call the number shown at the top of this notice.
Please include your taxpayer ID and the notice date on all correspondence.
If you have already resolved this matter, you may disregard this notice.
"""),
}
