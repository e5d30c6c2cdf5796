#!/usr/bin/env python3
"""Writes a thumbnail for each document of a docs NDJSON where Paperless-NGX keeps them.

The real backend of ../shared/paperless/real cannot run the consumer, which makes the
thumbnails of uploaded documents; scripts/real-report-test.sh loads its documents through the
ORM instead, so it gives them thumbnails with this script: a small page image drawn from each
document's title and text (Pillow, which Paperless's own venv holds), saved as WebP where
Paperless 3.0.5 looks for it, MEDIA_ROOT/documents/thumbnails/{id:07}.webp.

usage: python real-thumbnails.py DOCS_NDJSON THUMBNAIL_DIR [--skip ID ...]
(ids given to --skip get no thumbnail: Paperless then answers 404 for theirs)
"""
import argparse
import json
import pathlib
import textwrap

from PIL import Image, ImageDraw, ImageFont

W, H = 300, 424  # an A4 page's proportions, about Paperless's thumbnail size


def font(size, bold=False):
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = pathlib.Path("/usr/share/fonts/truetype/dejavu") / name
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def page(doc):
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([18, 18, 120, 30], fill=(40, 70, 140))  # a letterhead bar
    d.text((18, 38), str(doc.get("correspondent") or ""), fill=(90, 90, 90), font=font(11))
    title = textwrap.wrap(str(doc.get("title") or ""), 26)[:2]
    y = 60
    for line in title:
        d.text((18, y), line, fill="black", font=font(16, bold=True))
        y += 20
    y += 8
    body = font(11)
    for para in str(doc.get("content") or "").split("\n"):
        for line in textwrap.wrap(para, 40) or [""]:
            if y > H - 30:
                break
            d.text((18, y), line, fill=(40, 40, 40), font=body)
            y += 14
    d.text((W - 60, H - 20), f"#{doc['id']}", fill=(150, 150, 150), font=font(9))
    return img


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("docs")
    ap.add_argument("out")
    ap.add_argument("--skip", type=int, nargs="*", default=[])
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for line in open(a.docs, encoding="utf-8"):
        if not line.strip():
            continue
        doc = json.loads(line)
        if doc["id"] in a.skip:
            continue
        page(doc).save(out / f"{doc['id']:07}.webp", "WEBP", quality=60)
        n += 1
    print(f"{n} thumbnails in {out}")


main()
