"""The two NDJSON records per document: docs (as the Paperless API shows it) and truth."""

from __future__ import annotations

import datetime as dt
import json


def ts(t: dt.datetime) -> str:
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}+00:00"


def doc_json(d: dict) -> str:
    return json.dumps({
        "id": d["id"], "title": d["title"], "content": d["content"], "created": d["created"].isoformat(),
        "added": ts(d["added"]), "modified": ts(d["modified"]), "correspondent": d["correspondent"],
        "document_type": d["document_type"], "tags": d["tags"], "archive_serial_number": d["asn"],
        "original_file_name": d["file"], "page_count": d["pages"], "mime_type": "application/pdf",
    }, ensure_ascii=False, separators=(",", ":"))


def truth_json(d: dict) -> str:
    """A near-negative (near.py) also names its kind and the cluster it was made from."""
    t = {"id": d["id"], "cluster": d["cluster"], "kind": d["kind"], "noise": d["noise"], "family": d["family"]}
    if d.get("near"):
        t.update(near=d["near"], near_of=d["near_of"])
    return json.dumps(t, ensure_ascii=False, separators=(",", ":"))
