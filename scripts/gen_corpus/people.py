"""Names, places and invented brands, and the people and addresses made from them."""

from __future__ import annotations

from random import Random

from .words import pick, rint, word_bank


FIRST_F = {
    "de": word_bank("Anna|Maria|Julia|Laura|Sophie|Katharina|Sabine|Petra|Monika|Claudia|Andrea|"
                    "Stefanie|Lena|Hannah|Birgit|Ursula|Renate|Elke|Christina|Miriam|Jana|Nicole|"
                    "Susanne|Kerstin|Franziska|Carolin|Ines|Heike|Simone|Tanja"),
    "en": word_bank("Mary|Patricia|Jennifer|Linda|Elizabeth|Barbara|Susan|Jessica|Sarah|Karen|"
                    "Nancy|Lisa|Betty|Sandra|Ashley|Emily|Donna|Michelle|Carol|Amanda|Melissa|"
                    "Deborah|Rachel|Laura|Megan|Olivia|Grace|Hannah|Julia|Rebecca"),
}
FIRST_M = {
    "de": word_bank("Thomas|Michael|Andreas|Stefan|Markus|Christian|Peter|Klaus|Jürgen|Frank|"
                    "Tobias|Jan|Lukas|Felix|Matthias|Wolfgang|Uwe|Dieter|Sebastian|Florian|Jörg|"
                    "Ralf|Bernd|Holger|Dirk|Martin|Alexander|Daniel|Philipp|Moritz"),
    "en": word_bank("James|John|Robert|Michael|William|David|Richard|Joseph|Thomas|Charles|"
                    "Daniel|Matthew|Anthony|Mark|Steven|Paul|Andrew|Joshua|Kevin|Brian|George|"
                    "Timothy|Edward|Jason|Ryan|Gary|Eric|Jacob|Nathan|Scott"),
}
LAST = {
    "de": word_bank("Müller|Schmidt|Schneider|Fischer|Weber|Meyer|Wagner|Becker|Schulz|Hoffmann|"
                    "Schäfer|Koch|Bauer|Richter|Klein|Wolf|Schröder|Neumann|Schwarz|Zimmermann|"
                    "Braun|Krüger|Hofmann|Hartmann|Lange|Schmitt|Werner|Schmitz|Krause|Meier|"
                    "Lehmann|Köhler|Huber|Kaiser|Fuchs|Peters|Lang|Scholz|Möller|Weiß|Jung|Hahn|"
                    "Vogel|Friedrich|Keller|Günther|Berger|Winkler|Roth|Beck|Lorenz|Baumann|"
                    "Franke|Albrecht|Ludwig|Böhm|Winter|Kraus|Schumacher|Krämer|Vogt|Otto|Jäger|"
                    "Stein|Groß|Sommer|Seidel|Heinrich|Brandt|Haas|Schreiber|Graf|Dietrich|"
                    "Ziegler|Kuhn|Pohl|Engel|Horn|Busch|Bergmann|Voigt|Sauer|Arnold|Pfeiffer"),
    "en": word_bank("Smith|Johnson|Williams|Brown|Jones|Garcia|Miller|Davis|Rodriguez|Martinez|"
                    "Hernandez|Lopez|Wilson|Anderson|Taylor|Moore|Jackson|Martin|Lee|Thompson|"
                    "White|Harris|Clark|Lewis|Robinson|Walker|Young|Allen|King|Wright|Scott|Hill|"
                    "Green|Adams|Baker|Nelson|Carter|Mitchell|Roberts|Turner|Phillips|Campbell|"
                    "Parker|Evans|Edwards|Collins|Stewart|Morris|Murphy|Cook|Rogers|Morgan|Cooper|"
                    "Peterson|Reed|Bailey|Bell|Kelly|Howard|Ward|Cox|Richardson|Wood|Brooks|"
                    "Bennett|Gray|Hughes|Price|Sanders|Myers|Long|Ross|Foster|Fisher|Hayes"),
}
TOWNS = {
    "de": word_bank("Altenburg|Birkenfeld|Dornstadt|Eichenau|Falkensee|Grünwald|Hohenfels|"
                    "Ilmenau|Kirchberg|Lindau|Marienfeld|Neustadt|Ottersberg|Pfaffenhofen|"
                    "Quedlinburg|Rosenheim|Schwabach|Tannheim|Uhldingen|Vilsbiburg|Waldkirch|"
                    "Zell|Achern|Bergheim|Coswig|Dachau|Erding|Freising|Gifhorn|Hameln|Itzehoe|"
                    "Jena|Kempten|Landshut|Meppen|Nordhorn|Oberursel|Plauen|Rastatt|Sonthofen|"
                    "Traunstein|Unna|Verden|Wetzlar|Weilheim|Aurich|Biberach|Celle|Detmold"),
    "en": word_bank("Springfield|Riverside|Fairview|Madison|Georgetown|Franklin|Clinton|"
                    "Greenville|Bristol|Salem|Ashland|Burlington|Dayton|Oxford|Milton|Newport|"
                    "Lexington|Arlington|Auburn|Camden|Dover|Hudson|Kingston|Marion|Monroe|"
                    "Oakland|Plymouth|Richmond|Shelby|Trenton|Union|Vernon|Windsor|Winchester|"
                    "Chester|Lebanon|Manchester|Clayton|Jackson|Florence|Hamilton|Lancaster"),
}
STATES = word_bank("IL|OH|PA|NY|CA|TX|WA|OR|MI|WI|MN|VA|NC|GA|CO|MA|NJ|IN|MO|TN")
STREETS = {
    "de": (word_bank("Linden|Ahorn|Birken|Eichen|Kastanien|Goethe|Schiller|Mozart|Bahnhof|Haupt|"
                     "Kirch|Garten|Wiesen|Berg|Mühlen|Schul|Rosen|Tulpen|Feld|Wald|Brunnen|Markt|"
                     "Post|Sonnen|Kloster|Burg|Hafen|Park|Amsel|Drossel|Finken|Lerchen|Buchen"),
           word_bank("straße|weg|allee|gasse|ring|platz|steig")),
    "en": (word_bank("Maple|Oak|Pine|Cedar|Elm|Washington|Lake|Hill|Park|Main|Church|High|"
                     "Sunset|River|Spring|Chestnut|Walnut|Willow|Meadow|Forest|Lincoln|Jefferson|"
                     "Highland|Ridge|Valley|Cherry|Mill|Center|Prospect|Orchard"),
           word_bank("Street|Avenue|Road|Drive|Lane|Court|Boulevard|Way|Place")),
}
# Invented brand stems, so vendor names look real without naming real companies.
BRANDS = word_bank("Nordlicht|Vela|Terra|Lumen|Aurum|Primus|Helios|Kompass|Solvia|Weser|Rhenus|"
                   "Alpina|Isarwerk|Elbtal|Havel|Mosel|Neckar|Baltica|Harzer|Optima|Novus|Civis|"
                   "Fortis|Meridian|Polaris|Vireo|Kestrel|Summit|Horizon|Beacon|Pioneer|Evergreen|"
                   "Keystone|Bluewater|Redwood|Silverline|Northstar|Crestview|Brightway|Clearpath|"
                   "Tandem|Quadra|Zenit|Orbis|Castell|Lindwurm|Falkner|Sternberg|Auenland|Mirabel")


def person(rng: Random, lang: str, last: str | None = None) -> dict:
    female = rng.random() < 0.5
    first = pick(rng, FIRST_F[lang] if female else FIRST_M[lang])
    return {"first": first, "last": last or pick(rng, LAST[lang]), "female": female}


def street_line(rng: Random, lang: str) -> str:
    bases, sufs = STREETS[lang]
    if lang == "de":
        extra = pick(rng, ("", "", "", "a", "b"))
        return f"{pick(rng, bases)}{pick(rng, sufs)} {rint(rng, 1, 140)}{extra}"
    return f"{rint(rng, 10, 9899)} {pick(rng, bases)} {pick(rng, sufs)}"


def city_line(rng: Random, lang: str, town: str | None = None) -> str:
    town = town or pick(rng, TOWNS[lang])
    if lang == "de":
        return f"{rint(rng, 1067, 99998):05d} {town}"
    return f"{town}, {pick(rng, STATES)} {rint(rng, 10001, 99950):05d}"


def full_name(p: dict) -> str:
    return f"{p['first']} {p['last']}"


def addressee(p: dict, lang: str) -> str:
    if lang == "de":
        return f"{'Frau' if p['female'] else 'Herrn'} {full_name(p)}"
    return f"{'Ms.' if p['female'] else 'Mr.'} {full_name(p)}"


def salutation(p: dict, lang: str) -> str:
    if lang == "de":
        return f"Sehr geehrte Frau {p['last']}," if p["female"] else f"Sehr geehrter Herr {p['last']},"
    return f"Dear {'Ms.' if p['female'] else 'Mr.'} {p['last']},"


def initials(rng: Random, lang: str) -> str:
    p = person(rng, lang)
    return p["first"][0] + p["last"][0]


def recipient_block(world, p: dict, lang: str) -> list[str]:
    hh = world.households[lang]
    return [addressee(p, lang), hh["street"], hh["city"]]
