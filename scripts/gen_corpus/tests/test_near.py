"""--near-negatives: each kind differs from the paper it was made from in exactly what it names,
and the option changes nothing when it is 0."""

import re
import unittest

from gen_corpus.people import FIRST_F, FIRST_M
from gen_corpus.tests.helpers import parse, run

ARGS = ["--docs", "900", "--seed", "5", "--near-negatives", "1"]
DATE = re.compile(r"^\(?(\d{2}\.\d{2}\.(\d{4})?|\d{2}/\d{2}(/\d{4})?)\)?:?$")
AMOUNT = re.compile(r"^\$?-?\$?(\d{1,3}(\.\d{3})*,\d{2}|\d{1,3}(,\d{3})*\.\d{2})$")
MONTHS = set("Januar Februar März April Mai Juni Juli August September Oktober November Dezember "
             "January February March April May June July August September October November December".split())
NUMBER_LINE = re.compile(r"^(Rechnungsnummer:|Invoice:?|Kontoauszug Nr\.) ")
TITLES = {"Frau", "Herrn", "Herr", "geehrte", "geehrter", "Mr.", "Ms."}


def changed_lines(a: str, b: str) -> list[tuple[str, str]]:
    """(old, new) per changed line; the two texts must have as many lines."""
    la, lb = a.split("\n"), b.split("\n")
    assert len(la) == len(lb), (a, b)
    return [(x, y) for x, y in zip(la, lb) if x != y]


class NearNegatives(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raw_docs, raw_truth, _ = run(*ARGS)
        cls.docs = {d["id"]: d for d in parse(raw_docs)}
        cls.truth = parse(raw_truth)
        cls.by_cluster = {t["cluster"]: t for t in cls.truth if t["kind"] == "original" and t["cluster"] == t["id"]}
        cls.near = {}
        for t in cls.truth:
            if t.get("near") and t["kind"] == "original":
                cls.near.setdefault(t["near"], []).append((cls.docs[t["near_of"]], cls.docs[t["id"]], t))

    def test_every_kind_is_made_as_a_new_cluster_of_the_same_family(self):
        self.assertEqual(set(self.near), {"household", "next-period", "edition"})
        for kind, pairs in self.near.items():
            self.assertGreaterEqual(len(pairs), 5, kind)
            for orig, near, t in pairs:
                root = self.by_cluster[t["near_of"]]
                if t["cluster"] != t["id"]:
                    # The letter to the other member that another original already is.
                    self.assertEqual(self.docs[t["cluster"]]["content"], near["content"])
                self.assertEqual(root["kind"], "original")
                self.assertIsNotNone(t["family"])
                self.assertEqual(t["family"], root["family"])
        copies = [t for t in self.truth if t.get("near") and t["kind"] != "original"]
        self.assertTrue(copies, "a near-negative gets copies of its own")
        for t in copies:
            nears = {o.get("near") for o in self.truth if o["kind"] == "original" and o["cluster"] == t["cluster"]}
            self.assertIn(t["near"], nears)

    def test_no_two_clusters_share_a_text(self):
        first = {}
        for t in self.truth:
            if t["kind"] == "original":
                cluster = first.setdefault(self.docs[t["id"]]["content"], t["cluster"])
                self.assertEqual(cluster, t["cluster"], t)

    def test_household_letter_differs_only_in_the_addressee_and_salutation(self):
        first = set(FIRST_F["de"] + FIRST_M["de"] + FIRST_F["en"] + FIRST_M["en"])
        for orig, near, _ in self.near["household"]:
            lines = changed_lines(orig["content"], near["content"])
            self.assertEqual(len(lines), 2, lines)
            (addr_a, addr_b), (sal_a, sal_b) = lines
            a, b = addr_a.split(), addr_b.split()
            self.assertEqual(a[-1], b[-1], "the same surname")
            self.assertNotEqual(a[-2], b[-2], "another first name")
            self.assertIn(b[-2], first)
            self.assertTrue(set(a[:-2] + b[:-2]) <= TITLES, (a, b))
            self.assertEqual(sal_a.split()[-1], sal_b.split()[-1], "the salutation's surname")
            diff = {x for x, y in zip(sal_a.split(), sal_b.split()) if x != y}
            self.assertTrue(diff <= TITLES, (sal_a, sal_b))
            at = orig["content"].split("\n").index(addr_a)
            self.assertEqual(orig["content"].split("\n")[at + 1:at + 3], near["content"].split("\n")[at + 1:at + 3],
                             "the same address")
            self.assertEqual(near["created"], orig["created"])

    def test_next_period_differs_in_dates_number_and_one_to_three_amounts(self):
        for orig, near, _ in self.near["next-period"]:
            amounts = number = 0
            for a, b in changed_lines(orig["content"], near["content"]):
                ta, tb = a.split(), b.split()
                self.assertEqual(len(ta), len(tb), (a, b))
                for x, y in zip(ta, tb):
                    if x == y:
                        continue
                    if AMOUNT.match(x) and AMOUNT.match(y):
                        amounts += 1
                    elif NUMBER_LINE.match(a) and x == ta[-1] or a.startswith("Kontoauszug Nr.") and "/" in x:
                        number += 1
                    else:
                        date = DATE.match(x) and DATE.match(y) or x in MONTHS and y in MONTHS
                        year = x.rstrip(",:").isdigit() and int(x.rstrip(",:")) - int(y.rstrip(",:")) in (0, 1)
                        day = x.rstrip(".,").isdigit() and y.rstrip(".,").isdigit()  # 31. Mai -> 30. April
                        self.assertTrue(date or year or day, (a, b))
            self.assertIn(amounts, (1, 2, 3), (orig["content"], near["content"]))
            if re.search(r"^(Rechnungsnummer:|Invoice:? |Kontoauszug Nr\.)", orig["content"], re.M):
                self.assertEqual(number, 1, near["content"])
            self.assertLess(near["created"], orig["created"])
            self.assertLessEqual(near["created"], near["added"][:10])
            # every full date moved
            dates = lambda s: [w for w in s.split() if re.fullmatch(r"\(?\d{2}[./]\d{2}[./]\d{4}\)?:?", w)]
            self.assertTrue(all(x != y for x, y in zip(dates(orig["content"]), dates(near["content"]))))

    def test_edition_replaces_one_section_and_nothing_else(self):
        for orig, near, _ in self.near["edition"]:
            a, b = orig["content"].split("\n\n"), near["content"].split("\n\n")
            self.assertEqual(len(a), len(b))
            diff = [i for i in range(len(a)) if a[i] != b[i]]
            self.assertEqual(len(diff), 1, diff)
            head_a, body_a = a[diff[0]].split("\n", 1)
            head_b, body_b = b[diff[0]].split("\n", 1)
            self.assertEqual(head_a, head_b, "the section's heading stays")
            self.assertNotEqual(" ".join(body_a.split()), " ".join(body_b.split()))
            self.assertEqual(near["title"], orig["title"])

    def test_share_zero_is_the_corpus_without_the_option(self):
        self.assertEqual(run("--docs", "300", "--seed", "3"), run("--docs", "300", "--seed", "3", "--near-negatives", "0"))
        _, raw_truth, _ = run("--docs", "300", "--seed", "3")
        self.assertTrue(all("near" not in t for t in parse(raw_truth)))

    def test_share_out_of_range_is_refused(self):
        with self.assertRaises(SystemExit):
            run("--docs", "10", "--near-negatives", "1.5")


if __name__ == "__main__":
    unittest.main()
