#!/usr/bin/env python3
"""A real-OCR corpus: generated documents printed to page images, each scan degraded on its
own, read back by Tesseract. Writes docs + truth NDJSON like scripts/gen_corpus/.

Every document's content is OCR output, the original's included. A copy is another scan of the
same paper (rescan, page added or removed, cover page, header read in another order) or of the
paper with a stamp drawn on it; a re-upload is the same file again, so the same OCR text. Hard
negatives (template siblings, one letter to two people, editions) come from the generator.
Each scan draws a severity (mild, medium, heavy): rotation, blur, contrast, gaussian noise and
speckle, JPEG quality and resolution. The truth's `noise` is the scan's character error rate
against the text that was printed (whitespace collapsed), so pl-eval's recall by noise level is
recall by CER band; `scan` names the severity.

With --hard (examples/ocr-hard/) the pages are laid out so that Tesseract segments them
differently, the generator's text unchanged (scripts/ocr_layouts.py): each paper (cluster) draws
a layout among those that fit its text, `plain`, `addr-side` (sender's and recipient's blocks
side by side), `two-column` (prose in two columns) or `table` (aligned columns, amounts
right-aligned, a rule above the totals); each scan may add `marks` (a received stamp, a
handwritten note such as "Bearbeitet: <name>", strokes, a signature, drawn over the text), be
`rotated` (1.5-4 degrees) or `cropped` (a strip of one edge cut off), and draws a fourth
severity, `severe`. The truth's `layout` names them, e.g. `table+marks+rotated`. Without --hard
the output is what it was before these layouts existed. With --mixed SHARE (examples/ocr-holdout/)
that share of papers is laid out the --hard way and the rest plainly (layout `ocr`); with
--near-negatives SHARE the generator adds near-negatives (gen_corpus/near.py), each printed with
the font and layout of the paper it was made from.

Deterministic by seed; Tesseract runs single-threaded per page (OMP_THREAD_LIMIT=1), pages in
--jobs processes. Each page's OCR text is cached by a hash of what was drawn and how, so a
rerun only reads pages it has not read before.

    scripts/ocr_corpus.py --docs 1600 --seed 11 --out-docs examples/ocr/docs.ndjson \\
        --out-truth examples/ocr/truth.ndjson

Needs: tesseract-ocr, tesseract-ocr-eng, tesseract-ocr-deu, fonts-dejavu-core, fonts-liberation
(Debian packages); pillow, numpy, rapidfuzz (PyPI). `make ocr-corpus` installs them.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from random import Random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from rapidfuzz.distance import Levenshtein

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_corpus  # noqa: E402
import ocr_layouts as layouts  # noqa: E402

FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
         "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
         "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
         "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf")
STAMP_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
PAGE_IN = (8.27, 11.69)          # A4
MARGIN_IN = 0.8
FONT_PT = 10
LINE_PT = 13.5
SEVERITIES = ("mild", "medium", "heavy")
SEVERITY_WEIGHTS = (0.45, 0.35, 0.20)
HARD_SEVERITIES = ("mild", "medium", "heavy", "severe")
HARD_SEVERITY_WEIGHTS = (0.30, 0.30, 0.25, 0.15)
SCAN_FAULTS = (("marks", 0.40), ("rotated", 0.20), ("cropped", 0.20))  # --hard, each on its own


def scan_params(rng: Random, severity: str) -> dict:
    """How one scan degrades the paper; ranges widen with severity."""
    if severity == "mild":
        return dict(dpi=rng.choice((150, 200)), rot=rng.uniform(-0.5, 0.5), blur=rng.uniform(0.0, 0.5),
                    contrast=rng.uniform(0.85, 1.0), sigma=rng.uniform(0, 8), speckle=rng.uniform(0, 0.0005),
                    jpeg=rng.randint(50, 85))
    if severity == "medium":
        return dict(dpi=rng.choice((120, 150)), rot=rng.uniform(-1.0, 1.0), blur=rng.uniform(0.4, 0.9),
                    contrast=rng.uniform(0.7, 0.9), sigma=rng.uniform(8, 16), speckle=rng.uniform(0.0005, 0.002),
                    jpeg=rng.randint(30, 55))
    if severity == "severe":
        return dict(dpi=100, rot=rng.uniform(-1.5, 1.5), blur=rng.uniform(0.6, 0.75),
                    contrast=rng.uniform(0.55, 0.65), sigma=rng.uniform(12, 16), speckle=rng.uniform(0.002, 0.003),
                    jpeg=rng.randint(20, 28))
    return dict(dpi=rng.choice((110, 120)), rot=rng.uniform(-1.5, 1.5), blur=rng.uniform(0.5, 0.7),
                contrast=rng.uniform(0.6, 0.8), sigma=rng.uniform(10, 14), speckle=rng.uniform(0.001, 0.003),
                jpeg=rng.randint(25, 40))


def paginate(lines: list[str], font: ImageFont.FreeTypeFont, width_pt: float) -> list[list[str]]:
    """Lines wrapped to the printable width, cut into pages."""
    out = [part for line in lines for part in layouts.wrap(line, font, width_pt)]
    per_page = int((PAGE_IN[1] - 2 * MARGIN_IN) * 72 / LINE_PT)
    return [out[i:i + per_page] for i in range(0, len(out), per_page)] or [[""]]


def draw_stamp(img: Image.Image, stamp: dict, scale: float) -> None:
    """The generator's stamp line as a rubber stamp: a framed box in mid grey, tilted."""
    sf = ImageFont.truetype(STAMP_FONT, round(stamp["pt"] * scale))
    w, h = sf.getlength(stamp["text"]), stamp["pt"] * scale * 1.2
    pad = 0.4 * stamp["pt"] * scale
    box = Image.new("L", (round(w + 2 * pad), round(h + 2 * pad)), 0)
    bd = ImageDraw.Draw(box)
    bd.rectangle((2, 2, box.width - 3, box.height - 3), outline=255, width=max(2, round(scale)))
    bd.text((pad, pad), stamp["text"], font=sf, fill=255)
    box = box.rotate(stamp["angle"], expand=True, resample=Image.BICUBIC)
    ink = Image.new("L", box.size, stamp["ink"])  # a red stamp scans as mid grey
    pos = (round(stamp["x"] * (img.width - box.width)), round(stamp["y"] * (img.height - box.height)))
    img.paste(ink, pos, box)


def degrade(img: Image.Image, p: dict, seed: int, size: tuple[int, int]) -> bytes:
    """The scanner's side: blur, down to `size` pixels, contrast, noise, speckle, JPEG."""
    if p["blur"] > 0:
        img = img.filter(ImageFilter.GaussianBlur(p["blur"] * 2))
    img = img.resize(size, Image.LANCZOS)
    a = np.asarray(img, dtype=np.float32)
    a = 255 - (255 - a) * p["contrast"]
    rng = np.random.default_rng(seed)
    a = a + rng.normal(0.0, p["sigma"], a.shape)
    spots = rng.random(a.shape)
    a[spots < p["speckle"] / 2] = 0
    a[spots > 1 - p["speckle"] / 2] = 255
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=p["jpeg"])
    return buf.getvalue()


def draw_page(lines: list[str], font_path: str, stamp: dict | None, p: dict, seed: int) -> bytes:
    """The page as the scanner delivered it: JPEG bytes at p['dpi']."""
    hi = p["dpi"] * 2  # drawn at twice the scan resolution, then scanned down
    scale = hi / 72
    img = Image.new("L", (round(PAGE_IN[0] * hi), round(PAGE_IN[1] * hi)), 255)
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(font_path, round(FONT_PT * scale))
    x0 = y = MARGIN_IN * hi
    for line in lines:
        d.text((x0, y), line, font=font, fill=0)
        y += LINE_PT * scale
    if stamp:
        draw_stamp(img, stamp, scale)
    img = img.rotate(p["rot"], resample=Image.BICUBIC, fillcolor=255)
    return degrade(img, p, seed, (round(PAGE_IN[0] * p["dpi"]), round(PAGE_IN[1] * p["dpi"])))


def draw_hard_page(hard: dict, font_path: str, stamp: dict | None, p: dict, seed: int) -> bytes:
    """A --hard page: its layout's items, the stamp, marks over the text, rotation, a crop."""
    scale = p["dpi"] * 2 / 72
    img = Image.new("L", (round(PAGE_IN[0] * p["dpi"] * 2), round(PAGE_IN[1] * p["dpi"] * 2)), 255)
    layouts.draw_items(img, hard["items"], font_path, scale)
    if stamp:
        draw_stamp(img, stamp, scale)
    layouts.draw_marks(img, hard["marks"], scale)
    img = img.rotate(p["rot"], resample=Image.BICUBIC, fillcolor=255)
    if hard["crop"]:
        img = layouts.crop(img, *hard["crop"])
    return degrade(img, p, seed, (round(img.width / 2), round(img.height / 2)))


def ocr(job: tuple) -> str:
    """Draws one page and reads it with Tesseract; cached by what was drawn."""
    lines, font_path, stamp, p, seed, cache, hard = job
    what = [lines, os.path.basename(font_path), stamp, p, seed] + ([hard] if hard else [])
    key = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()
    path = os.path.join(cache, key[:2], key + ".txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    if hard:
        jpeg = draw_hard_page(hard, font_path, stamp, p, seed)
    else:
        jpeg = draw_page(lines, font_path, stamp, p, seed)
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    out = subprocess.run(["tesseract", "stdin", "stdout", "-l", "eng+deu", "--dpi", str(p["dpi"])],
                         input=jpeg, capture_output=True, check=True, env=env).stdout.decode("utf-8")
    text = out.replace("\f", "").strip()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return text


def stamp_line(orig: str, copy: str) -> tuple[str, str]:
    """The line the generator inserted for a stamp, and the text without it."""
    a, b = orig.split("\n"), copy.split("\n")
    i = next((k for k in range(len(a)) if a[k] != b[k]), len(a))
    return b[i], "\n".join(b[:i] + b[i + 1:])


def hard_pages(d: dict, root: int, text: str, font: ImageFont.FreeTypeFont, p: dict, seed: int) -> tuple[list, str]:
    """The pages of a --hard scan, (lines, what to draw) each, and the name of its layout: the
    paper's (drawn per cluster, or per the cluster a near-negative was made from, so every scan
    of a paper has it) and the scan's faults."""
    lines = text.split("\n")
    prng = Random(f"{seed}:paper:{root}")
    fits = [(name, w) for name, w in zip(layouts.PAPERS, layouts.PAPER_WEIGHTS) if layouts.applicable(name, lines, font)]
    paper = prng.choices([name for name, _ in fits], [w for _, w in fits])[0]
    pages = layouts.compose(lines, font, paper, prng)
    srng = Random(f"{seed}:faults:{d['id']}")
    faults = [name for name, prob in SCAN_FAULTS if srng.random() < prob]
    marks = layouts.marks(srng, pages) if "marks" in faults else {}
    if "rotated" in faults:
        p["rot"] = srng.choice((-1, 1)) * srng.uniform(1.5, 4.0)
    crop = None
    if "cropped" in faults:
        crop = (srng.choice(("left", "right", "top", "bottom")), round(srng.uniform(0.09, 0.15), 3))
    jobs = [(lines, dict(items=page, marks=marks.get(i, []), crop=crop)) for i, page in enumerate(pages)]
    return jobs, "+".join([paper] + faults)


def plan(docs: list[dict], seed: int, cache: str, hard: bool = False, mixed: float = 0.0) -> list[dict]:
    """One scan per document (re-uploads reuse their original's), its pages as OCR jobs. A
    near-negative is printed like the paper it was made from (same font, same --hard layout);
    with `mixed`, that share of papers is laid out the --hard way, the rest as without it."""
    by_id = {d["id"]: d for d in docs}
    scans = []
    for d in docs:
        root = d.get("near_of") or d["cluster"]
        is_hard = hard or (mixed > 0 and Random(f"{seed}:mixed:{root}").random() < mixed)
        rng = Random(f"{seed}:scan:{d['id']}")
        if is_hard:
            severity = rng.choices(HARD_SEVERITIES, HARD_SEVERITY_WEIGHTS)[0]
        else:
            severity = rng.choices(SEVERITIES, SEVERITY_WEIGHTS)[0]
        p = scan_params(rng, severity)
        font_path = FONTS[Random(f"{seed}:font:{root}").randrange(len(FONTS))]
        text, stamp = d["content"], None
        if d["kind"] == "stamp":
            stamp_text, text = stamp_line(by_id[d["cluster"]]["content"], d["content"])
            stamp = dict(text=stamp_text, pt=rng.choice((14, 16, 20)), angle=rng.uniform(-12, 12),
                         ink=rng.randint(90, 150), x=rng.uniform(0.4, 1.0), y=rng.uniform(0.0, 0.35))
        font = ImageFont.truetype(font_path, FONT_PT)
        if is_hard:
            pages, layout = hard_pages(d, root, text, font, p, seed)
        else:
            pages = [(lines, None) for lines in paginate(text.split("\n"), font, (PAGE_IN[0] - 2 * MARGIN_IN) * 72)]
            layout = "ocr" if mixed > 0 else None
        jobs = [(lines, font_path, stamp if i == 0 else None, p, rng.randrange(1 << 32), cache, extra)
                for i, (lines, extra) in enumerate(pages)]
        scans.append(dict(doc=d, severity=severity, params=p, printed=text, jobs=jobs, layout=layout))
    return scans


def collapse(s: str) -> str:
    return " ".join(s.split())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--dup-rate", type=float, default=0.45)
    ap.add_argument("--out-docs", required=True)
    ap.add_argument("--out-truth", required=True)
    ap.add_argument("--cache", default="work/ocr-cache")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--hard", action="store_true",
                    help="layouts that change Tesseract's segmentation, marks, rotated and cropped scans, "
                         "a severe degradation level; the truth gets `layout`")
    ap.add_argument("--mixed", type=float, default=0.0, metavar="SHARE",
                    help="that share of papers laid out as with --hard, the rest as without it (layout `ocr`)")
    ap.add_argument("--near-negatives", type=float, default=0.0, metavar="SHARE",
                    help="the generator's --near-negatives: household letters, next statements, editions")
    a = ap.parse_args(argv)
    docs = list(gen_corpus.generate(a.docs, a.seed, a.dup_rate, 0.10, text_noise=False,
                                    near_negatives=a.near_negatives))
    scans = plan(docs, a.seed, a.cache, a.hard, a.mixed)
    todo = [(s, j) for s in scans if s["doc"]["kind"] != "reupload" for j in s["jobs"]]
    print(f"ocr-corpus: {len(docs)} documents, {len(todo)} pages to read", file=sys.stderr)
    texts: dict[int, list[str]] = {}
    with ProcessPoolExecutor(a.jobs) as pool:
        for n, ((s, _), text) in enumerate(zip(todo, pool.map(ocr, [j for _, j in todo], chunksize=4))):
            texts.setdefault(s["doc"]["id"], []).append(text)
            if (n + 1) % 100 == 0:
                print(f"ocr-corpus: {n + 1}/{len(todo)} pages", file=sys.stderr)
    by_cluster = {}
    for d in (a.out_docs, a.out_truth):
        os.makedirs(os.path.dirname(d) or ".", exist_ok=True)
    with open(a.out_docs + ".tmp", "w", encoding="utf-8", newline="\n") as fd, \
            open(a.out_truth + ".tmp", "w", encoding="utf-8", newline="\n") as ft:
        for s in scans:
            d = s["doc"]
            if d["kind"] == "reupload":  # the same file again: the same OCR text and error rate
                content, cer, severity, layout = by_cluster[d["cluster"]]
            else:
                content = "\n\n".join(texts[d["id"]])
                src = collapse(s["printed"])
                cer = round(Levenshtein.distance(src, collapse(content)) / max(1, len(src)), 4)
                severity, layout = s["severity"], s["layout"]
                if d["kind"] == "original":
                    by_cluster[d["id"]] = (content, cer, severity, layout)
            d = dict(d, content=content, noise=cer)
            fd.write(gen_corpus.doc_json(d) + "\n")
            t = json.loads(gen_corpus.truth_json(d))
            t["scan"] = severity
            if layout:
                t["layout"] = layout
            ft.write(json.dumps(t, ensure_ascii=False, separators=(",", ":")) + "\n")
    os.replace(a.out_docs + ".tmp", a.out_docs)
    os.replace(a.out_truth + ".tmp", a.out_truth)
    print(f"ocr-corpus: wrote {a.out_docs} and {a.out_truth}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
