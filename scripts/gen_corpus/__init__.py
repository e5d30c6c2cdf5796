"""Generate a synthetic Paperless-NGX-like archive with planted near-duplicates.

Two NDJSON streams come out, line by line in the same order:

* docs:  documents shaped like the Paperless API describes them (OCR text plus
  metadata);
* truth: for every document, the id of the original it copies (its cluster),
  how the copy was made (kind), the OCR noise applied, and the template family
  it was produced from (same family + different cluster = hard negative).

Everything is drawn from one random.Random(seed), so the same arguments give
byte-identical output. Memory stays flat: an original is written as soon as it
is made, and only originals that still owe copies are held back.

    python3 scripts/gen_corpus --docs 320 --seed 7 \\
        --out-docs examples/docs.ndjson --out-truth examples/truth.ndjson

Python callers put scripts/ on sys.path, `import gen_corpus` and use generate(),
doc_json() and truth_json() (scripts/ocr_corpus.py does).

Modules, in the order a document is made: words, people, formatting, prose (the
banks and how text is drawn from them); templates/ (recurring vendor documents),
letters, contracts, manuals (one-offs); archive (picks what comes next and makes
originals and copies); kinds and noise (how a copy differs); near (near-negatives:
household letters, the month before's statement, editions); stream (id order);
output (the NDJSON records); stats and cli (the command line). Tests: tests/.
"""

from .archive import CATEGORIES
from .cli import main
from .kinds import KINDS
from .noise import NOISE_LEVELS
from .output import doc_json, truth_json
from .stream import generate
from .words import LANGS

__all__ = ["CATEGORIES", "KINDS", "LANGS", "NOISE_LEVELS", "doc_json", "generate", "main", "truth_json"]
