"""Free prose: the phrase banks are large enough that unrelated letters differ."""

import unittest
from random import Random

from gen_corpus.prose import sentence
from gen_corpus.words import LANGS


class Vocabulary(unittest.TestCase):
    def test_free_text_word_banks_are_large(self):
        rng = Random(2)
        for lang in LANGS:
            words = set()
            for _ in range(3000):
                words.update(w.strip(".,").lower() for w in sentence(rng, lang).split())
            self.assertGreater(len(words), 400, lang)
