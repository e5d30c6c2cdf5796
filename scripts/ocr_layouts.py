"""Page layouts and marks for the hard real-OCR fixture (scripts/ocr_corpus.py --hard).

The generator's text stays as it is; only where it is printed changes, so that Tesseract
segments the page differently: the sender's and the recipient's address blocks side by side,
prose in two columns, tables with aligned columns (amounts right-aligned, a rule above the
totals). A scan may add marks drawn over the text (a received stamp, a handwritten
"Bearbeitet: <name>", strokes, a signature), and be rotated or have a strip of the page cut off.

A page is a list of items in points (1/72 in) from the page's top left corner:
("t", x, y, text, anchor) a line of text ("la" left-aligned at x, "ra" right-aligned at x),
("r", x1, y1, x2, y2) a ruled line. Marks are plain data too; everything is drawn by draw_items
and draw_marks, so the OCR cache can key on it.
"""

from __future__ import annotations

import math
import re
from random import Random

from PIL import Image, ImageDraw, ImageFont

from gen_corpus.people import FIRST_F, FIRST_M, LAST
from gen_corpus.words import pick

PAGE_PT = (595.4, 841.7)         # A4
MARGIN_PT = 57.6
LINE_PT = 13.5
WIDTH_PT = PAGE_PT[0] - 2 * MARGIN_PT
BOTTOM_PT = PAGE_PT[1] - MARGIN_PT
GUTTER_PT = 24
PAPERS = ("plain", "addr-side", "two-column", "table")
PAPER_WEIGHTS = (0.25, 0.25, 0.25, 0.25)
HAND_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSerif-Italic.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Italic.ttf")
STAMP_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
CELL_SPLIT = re.compile(r"\s{2,}")
CELLS = re.compile(r"^\s*\S.*\S {2,}\S")
AMOUNT = re.compile(r"^(\S.*?\S):?\s+((?:-|\$|€|EUR )*\d[\d.,]*[.,]\d\d\s?(?:EUR|€)?)$")
NUMERIC = re.compile(r"^[-+$€]?\s?[\d.,]+\s?(?:EUR|€|%)?$")
TOTAL = re.compile(r"(?i)total|summe|gesamt|betrag|balance|netto|brutto|due")


# ---- text ---------------------------------------------------------------------------------

def wrap(line: str, font: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """One line wrapped at word boundaries to `width` points (a word longer stays whole)."""
    out = []
    while line and font.getlength(line) > width and " " in line:
        words = line.split(" ")
        k = len(words) - 1
        while k > 1 and font.getlength(" ".join(words[:k])) > width:
            k -= 1
        out.append(" ".join(words[:k]))
        line = " ".join(words[k:])
    out.append(line)
    return out


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines."""
    out, start = [], None
    for i, line in enumerate(lines + [""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            out.append((start, i))
            start = None
    return out


# ---- paper layouts: which lines go where ----------------------------------------------------

def address_pair(lines: list[str], font) -> tuple[int, int, int] | None:
    """The first two blocks when both look like address blocks: (end1, start2, end2)."""
    bs = blocks(lines)
    if len(bs) < 3 or bs[0][0] != 0:
        return None
    (s1, e1), (s2, e2) = bs[0], bs[1]
    half = (WIDTH_PT - GUTTER_PT) / 2
    ok = all(2 <= e - s <= 7 for s, e in ((s1, e1), (s2, e2)))
    if not ok or any(font.getlength(l) > half for l in lines[s1:e2]):
        return None
    return e1, s2, e2


def is_prose(par: list[str]) -> bool:
    return len(par) >= 2 and sum(map(len, par)) / len(par) >= 45 and not any(CELLS.match(l) for l in par)


def prose_runs(lines: list[str]) -> list[tuple[int, int]]:
    """Runs of prose paragraphs (blank lines between them included), 5 lines or more."""
    runs = []
    for s, e in blocks(lines):
        if not is_prose(lines[s:e]):
            continue
        if runs and all(not l.strip() for l in lines[runs[-1][1]:s]):
            runs[-1] = (runs[-1][0], e)
        else:
            runs.append((s, e))
    return [(s, e) for s, e in runs if e - s >= 5]


def is_row(line: str) -> bool:
    return bool(CELLS.match(line) or AMOUNT.match(line.strip()))


def table_runs(lines: list[str]) -> list[tuple[int, int]]:
    """Runs of table rows (aligned cells, or a label and an amount), blank lines inside."""
    runs, i = [], 0
    while i < len(lines):
        if not is_row(lines[i]):
            i += 1
            continue
        j = end = i
        while j < len(lines) and (is_row(lines[j]) or not lines[j].strip()
                                  or (lines[j].startswith("  ") and j > i)):
            if lines[j].strip():
                end = j + 1
            j += 1
        if sum(is_row(l) for l in lines[i:end]) >= 3:
            runs.append((i, end))
        i = max(end, i + 1)
    return runs


def applicable(paper: str, lines: list[str], font) -> bool:
    if paper == "addr-side":
        return address_pair(lines, font) is not None
    if paper == "two-column":
        return bool(prose_runs(lines))
    if paper == "table":
        return bool(table_runs(lines))
    return True


# ---- placing lines on pages -----------------------------------------------------------------

class Sheet:
    """Pages filled top to bottom; y is the baseline row's top, in points."""

    def __init__(self):
        self.pages: list[list[tuple]] = [[]]
        self.y = MARGIN_PT

    def room(self, rows: int = 1) -> None:
        if self.y + rows * LINE_PT > BOTTOM_PT and self.pages[-1]:
            self.pages.append([])
            self.y = MARGIN_PT

    def text(self, x: float, text: str, anchor: str = "la", dy: float = 0) -> None:
        if text.strip():
            self.pages[-1].append(("t", round(x, 1), round(self.y + dy, 1), text.strip() if anchor == "ra" else text, anchor))

    def rule(self, x1: float, x2: float, dy: float = -2) -> None:
        self.pages[-1].append(("r", round(x1, 1), round(self.y + dy, 1), round(x2, 1), round(self.y + dy, 1)))

    def line(self, text: str, font) -> None:
        for part in wrap(text, font, WIDTH_PT):
            self.room()
            self.text(MARGIN_PT, part)
            self.y += LINE_PT


def place_side(sheet: Sheet, left: list[str], right: list[str], rng: Random) -> None:
    """Two blocks side by side: the recipient's left, the sender's right."""
    x2 = MARGIN_PT + (WIDTH_PT + GUTTER_PT) / 2 + rng.uniform(0, 40)
    sheet.room(max(len(left), len(right)))
    for i in range(max(len(left), len(right))):
        if i < len(left):
            sheet.text(MARGIN_PT, left[i])
        if i < len(right):
            sheet.text(x2, right[i])
        sheet.y += LINE_PT


def place_columns(sheet: Sheet, lines: list[str], font) -> None:
    """Prose re-wrapped to two columns, filled left then right, balanced on the last page."""
    col = (WIDTH_PT - GUTTER_PT) / 2
    wrapped = []
    for s, e in blocks(lines):
        wrapped += ([""] if wrapped else []) + wrap(" ".join(lines[s:e]), font, col)
    while wrapped:
        sheet.room(2)
        rows = int((BOTTOM_PT - sheet.y) // LINE_PT)
        n = min(rows, math.ceil(len(wrapped) / 2))
        y0 = sheet.y
        for c, x in enumerate((MARGIN_PT, MARGIN_PT + col + GUTTER_PT)):
            sheet.y = y0
            for text in wrapped[c * n:(c + 1) * n]:
                sheet.text(x, text)
                sheet.y += LINE_PT
        sheet.y = y0 + n * LINE_PT
        wrapped = wrapped[2 * n:]


def row_cells(line: str) -> list[str]:
    m = None if CELLS.match(line) else AMOUNT.match(line.strip())
    return [m.group(1), m.group(2)] if m else CELL_SPLIT.split(line.strip())


def column_edges(rows: list[list[str]], font, rng: Random) -> list[tuple[float, float]]:
    """(left, right) of each column, the widest cells spread out to the printable width."""
    n = max(map(len, rows))
    widths = [max((font.getlength(r[i]) for r in rows if len(r) == n), default=0) for i in range(n)]
    spare = max(0.0, WIDTH_PT - sum(widths)) * rng.uniform(0.6, 1.0)
    gap = spare / max(1, n - 1) if n > 1 else 0
    x, edges = MARGIN_PT, []
    for w in widths:
        edges.append((x, x + w))
        x += w + gap
    if n > 1:  # the last column (the amount) ends at the right margin
        edges[-1] = (PAGE_PT[0] - MARGIN_PT - widths[-1], PAGE_PT[0] - MARGIN_PT)
    return edges


def place_table(sheet: Sheet, lines: list[str], font, rng: Random) -> None:
    """Rows in aligned columns: numbers right-aligned, a rule under the header and above the
    totals; some tables ruled as a grid."""
    rows = [row_cells(l) if l.strip() else [] for l in lines]
    edges = column_edges([r for r in rows if r], font, rng)
    grid, prev = rng.random() < 0.4, 0
    top = sheet.y
    for k, (line, cells) in enumerate(zip(lines, rows)):
        sheet.room()
        if not cells:
            sheet.y += LINE_PT / 2
            continue
        if font.getlength("  ".join(cells)) > WIDTH_PT:
            sheet.line(line, font)
            continue
        if prev > 2 and len(cells) <= 2 and TOTAL.search(cells[0]):
            sheet.rule(edges[0][0], edges[-1][1])
        indent = line.startswith("  ") and len(edges) > 1
        for i, cell in enumerate(cells):
            col = edges[len(edges) - len(cells) + i] if i else edges[1 if indent else 0]
            right = i and (NUMERIC.match(cell) or col is edges[-1])
            x = PAGE_PT[0] - MARGIN_PT - font.getlength(cell)  # a left-aligned cell stays on the page
            sheet.text(col[1] if right else min(col[0], x), cell, "ra" if right else "la")
        sheet.y += LINE_PT
        if k == 0 and not any(NUMERIC.match(c) for c in cells):
            sheet.rule(edges[0][0], edges[-1][1], dy=-3)
        prev = len(cells)
    if grid and sheet.y - top > LINE_PT and sheet.pages[-1]:
        for left, _ in edges[1:]:
            x = left - 6
            sheet.pages[-1].append(("r", round(x, 1), round(max(MARGIN_PT, top), 1), round(x, 1), round(sheet.y, 1)))


def compose(lines: list[str], font, paper: str, rng: Random) -> list[list[tuple]]:
    """The pages of one paper: lines placed by its layout, the rest flowed as usual."""
    sheet, i = Sheet(), 0
    spans = {"two-column": prose_runs, "table": table_runs}.get(paper, lambda _: [])(lines)
    if paper == "addr-side":
        e1, s2, e2 = address_pair(lines, font)
        place_side(sheet, lines[s2:e2], lines[:e1], rng)
        i = e2
    for s, e in spans:
        for line in lines[i:s]:
            sheet.line(line, font)
        if paper == "two-column":
            place_columns(sheet, lines[s:e], font)
        else:
            place_table(sheet, lines[s:e], font, rng)
        i = e
    for line in lines[i:]:
        sheet.line(line, font)
    return [p for p in sheet.pages if p] or [[]]


# ---- marks over the text --------------------------------------------------------------------

def a_name(rng: Random) -> str:
    lang = rng.choice(("de", "en"))
    first = pick(rng, FIRST_F[lang] if rng.random() < 0.5 else FIRST_M[lang])
    return rng.choice((f"{first[0]}. {pick(rng, LAST[lang])}", pick(rng, LAST[lang]), first))


def a_date(rng: Random) -> str:
    d, m, y = rng.randint(1, 28), rng.randint(1, 12), rng.randint(2018, 2023)
    return rng.choice((f"{d:02d}.{m:02d}.{y}", f"{d}.{m}.{str(y)[2:]}", f"{d:02d}. {m:02d}. {y}"))


def text_span(page: list[tuple]) -> tuple[float, float]:
    ys = [it[2] for it in page if it[0] == "t"] or [MARGIN_PT, BOTTOM_PT]
    return min(ys), max(ys) + LINE_PT


def mark(rng: Random, what: str, span: tuple[float, float]) -> dict:
    """One mark somewhere over the text of a page (points), ink grey (a coloured pen scans so)."""
    x = rng.uniform(MARGIN_PT, PAGE_PT[0] - MARGIN_PT - 120)
    y = rng.uniform(span[0], max(span[0], span[1] - 30))
    m = dict(what=what, x=round(x, 1), y=round(y, 1), angle=round(rng.uniform(-18, 18), 1),
             ink=rng.randint(40, 140), width=round(rng.uniform(1.2, 2.6), 2), seed=rng.randrange(1 << 30))
    if what == "received":
        m.update(text=[rng.choice(("EINGEGANGEN", "Eingegangen", "RECEIVED")), a_date(rng)],
                 pt=rng.choice((12, 14, 16)), ink=rng.randint(90, 150), angle=round(rng.uniform(-10, 10), 1))
    elif what == "note":
        label = rng.choice(("Bearbeitet: {n}", "Eingegangen am {d}", "erl. {d} {n}", "Kopie an {n}", "bez. {d}"))
        m.update(text=label.format(n=a_name(rng), d=a_date(rng)), pt=rng.choice((13, 15, 18, 22)),
                 font=rng.randrange(len(HAND_FONTS)))
    elif what == "strokes":
        m.update(kinds=[rng.choice(("underline", "cross", "scribble", "tick", "bracket"))
                        for _ in range(rng.randint(1, 3))])
    return m


def marks(rng: Random, pages: list[list[tuple]]) -> dict[int, list[dict]]:
    """Marks per page index: one to three of received stamp, note, strokes, signature."""
    whats = rng.sample(("received", "note", "strokes", "signature"), rng.randint(1, 3))
    out: dict[int, list[dict]] = {}
    for what in whats:
        k = 0 if rng.random() < 0.7 else rng.randrange(len(pages))
        out.setdefault(k, []).append(mark(rng, what, text_span(pages[k])))
    return out


# ---- drawing --------------------------------------------------------------------------------

def draw_items(img: Image.Image, page: list[tuple], font_path: str, scale: float) -> None:
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(font_path, round(10 * scale))
    for it in page:
        if it[0] == "t":
            d.text((it[1] * scale, it[2] * scale), it[3], font=font, fill=0, anchor=it[4])
        else:
            d.line([c * scale for c in it[1:]], fill=0, width=max(1, round(0.8 * scale)))


def overlay(img: Image.Image, layer: Image.Image, m: dict, scale: float, ink: int) -> None:
    """A drawn layer (white on black = ink), rotated and pasted at the mark's place."""
    layer = layer.rotate(m["angle"], expand=True, resample=Image.BICUBIC)
    img.paste(Image.new("L", layer.size, ink), (round(m["x"] * scale), round(m["y"] * scale)), layer)


def text_layer(text: list[str], font: ImageFont.FreeTypeFont, box: bool, scale: float) -> Image.Image:
    w = max(font.getlength(t) for t in text)
    lh = font.size * 1.25
    pad = 0.4 * font.size
    layer = Image.new("L", (round(w + 2 * pad), round(lh * len(text) + 2 * pad)), 0)
    d = ImageDraw.Draw(layer)
    if box:
        d.rectangle((2, 2, layer.width - 3, layer.height - 3), outline=255, width=max(2, round(1.5 * scale)))
    for i, t in enumerate(text):
        d.text((pad + (w - font.getlength(t)) / 2, pad + i * lh), t, font=font, fill=255)
    return layer


def curve(rng: Random, kind: str, w: float, h: float) -> list[tuple[float, float]]:
    """Points of one pen stroke in a w x h box."""
    n = 40
    if kind == "underline":
        return [(w * i / n, h * 0.8 + rng.uniform(-1, 1) * h * 0.05) for i in range(n + 1)]
    if kind == "cross":
        return [(w * i / n, h * i / n + rng.uniform(-1, 1)) for i in range(n + 1)]
    if kind == "tick":
        return [(0, h * 0.6), (w * 0.25, h), (w * 0.7, 0)]
    if kind == "bracket":
        return [(w * 0.3, 0), (0, h * 0.1), (0, h * 0.9), (w * 0.3, h)]
    if kind == "signature":
        f1, f2, ph = rng.uniform(3, 7), rng.uniform(8, 14), rng.uniform(0, 6.3)
        return [(w * t / 120 + w * 0.06 * math.sin(f2 * t / 120 * 6.3),
                 h / 2 + h * 0.4 * math.sin(f1 * t / 120 * 6.3 + ph) * math.cos(f2 * t / 240 * 6.3))
                for t in range(121)]
    cx, cy = w / 2, h / 2  # scribble: a wandering loop
    return [(cx + w * 0.45 * math.sin(t / 5 + rng.uniform(0, 0.3)) * math.cos(t / 17),
             cy + h * 0.45 * math.cos(t / 3.7 + rng.uniform(0, 0.3))) for t in range(90)]


def stroke_layer(m: dict, kinds: list[str], scale: float) -> Image.Image:
    rng = Random(m["seed"])
    sizes = {"underline": (220, 12), "cross": (200, 60), "tick": (24, 24), "bracket": (20, 70),
             "signature": (150, 45), "scribble": (90, 50)}
    w = max(sizes[k][0] for k in kinds)
    h = sum(sizes[k][1] for k in kinds) + 10 * len(kinds)
    layer = Image.new("L", (round(w * scale) + 8, round(h * scale) + 8), 0)
    d, y = ImageDraw.Draw(layer), 0.0
    for k in kinds:
        kw, kh = sizes[k]
        pts = [((px + 2) * scale, (py + y + 2) * scale) for px, py in curve(rng, k, kw, kh)]
        d.line(pts, fill=255, width=max(2, round(m["width"] * scale)), joint="curve")
        y += kh + 10
    return layer


def draw_marks(img: Image.Image, page_marks: list[dict], scale: float) -> None:
    for m in page_marks:
        if m["what"] == "received":
            layer = text_layer(m["text"], ImageFont.truetype(STAMP_FONT, round(m["pt"] * scale)), True, scale)
        elif m["what"] == "note":
            layer = text_layer([m["text"]], ImageFont.truetype(HAND_FONTS[m["font"]], round(m["pt"] * scale)),
                               False, scale)
        else:
            layer = stroke_layer(m, m.get("kinds", ["signature"]), scale)
        overlay(img, layer, m, scale, m["ink"])


def crop(img: Image.Image, side: str, frac: float) -> Image.Image:
    """The page with a strip of one edge cut off (the paper lay askew on the glass)."""
    w, h = img.size
    box = {"left": (round(w * frac), 0, w, h), "right": (0, 0, round(w * (1 - frac)), h),
           "top": (0, round(h * frac), w, h), "bottom": (0, 0, w, round(h * (1 - frac)))}[side]
    return img.crop(box)
