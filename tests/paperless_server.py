#!/usr/bin/env python3
"""A Paperless-NGX-compatible test server (Python 3.11 standard library only).

It answers the parts of the REST API the toolkit calls with the shapes of Paperless-NGX 3.0.5
(checked against the real backend, which wins where they disagree), and it takes orders from
the tests on a control endpoint: add, change and delete documents, and inject faults.

    python3 tests/paperless_server.py [--token T] [--certfile C --keyfile K]

It binds 127.0.0.1 on a free port and prints `PORT <n>` as its first stdout line.

API (token auth `Authorization: Token T`; `Accept: application/json; version=N`, N in 9, 10):
  POST   /api/token/                {"username": any, "password": "test-password"} -> {"token": T}
  GET    /api/documents/            page, page_size (25, max 100000), ordering, fields,
                                    id, id__in, modified__gt/gte/lt/lte, added__gt/lt
                                    ("all" with every filtered id when version < 10)
  GET    /api/documents/ID/         PATCH /api/documents/ID/    DELETE /api/documents/ID/
  POST   /api/documents/bulk_edit/  add_tag, remove_tag, modify_tags, set_correspondent,
                                    set_document_type, delete
  POST   /api/documents/delete/     {"documents": [...]}
  GET    /api/trash/                POST /api/trash/ {"action": "restore"|"empty", "documents"}
  GET    /api/documents/ID/notes/   POST {"note": text}   DELETE ?id=NOTE  (each answers the notes;
                                    POST and DELETE bump modified, as the real server does)
  GET    /api/tags/ /api/correspondents/ /api/document_types/     POST (create by name)
  GET    /api/tags/ID/ (and the others)   DELETE (drops the links from every document)
                                    documents also filter by tags__id__all
  GET    /api/documents/ID/thumb/   the document's `thumb` as added (bytes and content type, as
                                    the real server answers image/webp), else 404 as the real
                                    server does when the thumbnail file is missing
  GET    /api/custom_fields/        POST {"name", "data_type"} (400 on a name taken)
  PATCH  /api/documents/ID/ {"custom_fields": [{"field", "value"}...]} replaces the whole list;
                                    a documentlink value is a list of live document ids, and
                                    the links are mirrored as 3.0.5 does (reflect_doclinks): each
                                    target gains the document in its own entry of the field
                                    (created when missing), a target taken out loses it (its
                                    entry stays, emptied), and every target's modified is bumped

Control (no auth), POST /__control__ with a JSON object {"action": ...}:
  reset                          empty library, no faults, versions 9 and 10
  add      {"docs": [{title, content, correspondent?, document_type?, tags?: [names],
             created?, modified?, added?, archive_serial_number?, owner? (default 1),
             user_can_change? (default true: false makes every change of it answer 403),
             thumb? {"b64": base64 bytes, "ctype"?: content type (default image/webp)}}]}
           -> {"ids": [...]}
  update   {"id", field: value...} (names for correspondent/document_type/tags); bumps modified
  access   {"id", "owner"?, "user_can_change"?}  as a bulk edit of permissions: modified kept
  delete   {"ids": [...]}  soft delete (trash)
  rename   {"kind": "tags"|"correspondents"|"document_types", "old", "new"}  (no doc change)
  versions {"allowed": ["9", "10"], "default": "10"}
  release  {"release": "2.20.5"}  X-Version; a 2.x release has no /api/documents/delete/
  fault    {"kind": ..., "count": n (default 1), "path": substring to match (default any),
            "after": n (default 0): let the first n matching requests through,
            "method": only requests of this method (default any)}
           kind status   {"status": 500}            answer that status
           kind delay    {"seconds": s}             sleep, then answer normally (a write lands
                                                    late, after a client that gave up)
           kind slow     {"seconds": s, "status"?}  act at once, sleep, then answer (a write
                                                    lands, its answer comes late), or answer
                                                    that status instead (a 500 after landing)
           kind gather   {"seconds": s}             hold each of the `count` matching requests
                                                    until all have come (at most s seconds),
                                                    then answer them all at once
           kind 429      {"retry_after": s}         429 with Retry-After
           kind truncate                            send half the body, then close
           kind close                               close the connection without an answer
           kind html                                200 text/html login page
           kind drip     {"interval": s}            a 200 answer sent one byte every s seconds
           kind huge     {"mb": n}                  a 200 JSON answer of n MiB
           kind echo     {"status": 401}            a hostile server: that status with the
                         Authorization header repeated in the JSON detail, in an X-Echo header
                         and (3xx) in the Location; "upper": true echoes it upper-cased,
                         "base64": true base64-encoded,
                         "pad": n puts n characters before the body and "ctype" sets its type
           kind mutate   {"page": p, "delete": [ids], "add": [docs]}  change the library just
                         before answering a document list request for page p
  clear_faults
GET /__control__ -> {"requests": [{"method", "path", "accept", "auth"}], "docs": n, "faults": n}
("auth" says whether an Authorization header came, never its value.)
"""

import argparse
import base64
import datetime as dt
import hashlib
import json
import re
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

LOCK = threading.RLock()
PASSWORD = "test-password"  # POST /api/token/ {"username": any, "password": PASSWORD}
DOC_FIELDS = ["id", "correspondent", "document_type", "storage_path", "title", "content", "tags",
              "created", "created_date", "modified", "added", "deleted_at", "archive_serial_number",
              "original_file_name", "archived_file_name", "duplicate_documents", "owner",
              "user_can_change", "is_shared_by_requester", "notes", "custom_fields",
              "page_count", "mime_type", "root_document", "versions"]
KINDS = ("tags", "correspondents", "document_types")
LOGIN_PAGE = (b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>"
              b"<form method=post action=/login><input name=user><input type=password name=pw>"
              b"</form></body></html>")


def now_utc():
    return dt.datetime.now(dt.timezone.utc)


def fmt(t):
    # DRF writes UTC datetimes with a Z suffix and microseconds.
    s = t.astimezone(dt.timezone.utc).isoformat()
    return s.replace("+00:00", "Z")


# Django's parse_datetime: fromisoformat first, then its regex (note `\s*` before the zone).
DT_RE = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})[T ](?P<hour>\d{1,2}):(?P<minute>\d{1,2})"
    r"(?::(?P<second>\d{1,2})(?:[.,](?P<microsecond>\d{1,6})\d{0,6})?)?\s*(?P<tzinfo>Z|[+-]\d{2}(?::?\d{2})?)?$")


def parse_dt(s):
    try:
        t = dt.datetime.fromisoformat(s)
    except ValueError:
        m = DT_RE.match(s)
        if not m:
            return None
        g = m.groupdict()
        tz = g.pop("tzinfo")
        g["microsecond"] = (g["microsecond"] or "0").ljust(6, "0")
        try:
            t = dt.datetime(**{k: int(v) for k, v in g.items() if v is not None})
        except ValueError:
            return None
        if tz == "Z":
            t = t.replace(tzinfo=dt.timezone.utc)
        elif tz:
            off = int(tz[1:3]) * 60 + (int(tz[-2:]) if len(tz) > 3 else 0)
            t = t.replace(tzinfo=dt.timezone(dt.timedelta(minutes=-off if tz[0] == "-" else off)))
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)  # the server's TIME_ZONE is UTC
    return t


class Library:
    def __init__(self, token):
        self.token = token
        self.reset()

    def reset(self):
        self.docs = {}
        self.trash = {}
        self.names = {k: {} for k in KINDS}
        self.next_id = 1
        self.next_note_id = 1
        self.fields = {}
        self.next_name_id = {k: 1 for k in KINDS}
        self.last_modified = now_utc()
        self.faults = []
        self.requests = []
        self.allowed = ["9", "10"]
        self.default_version = "10"
        self.release = "3.0.5"

    def tick(self):
        # Strictly increasing `modified`, like a real clock between two saves.
        t = max(now_utc(), self.last_modified + dt.timedelta(microseconds=1))
        self.last_modified = t
        return fmt(t)

    def name_id(self, kind, name, create=True):
        if name is None:
            return None
        for i, o in self.names[kind].items():
            if o["name"] == name:
                return i
        if not create:
            return None
        i = self.next_name_id[kind]
        self.next_name_id[kind] += 1
        o = {"id": i, "slug": name.lower().replace(" ", "-"), "name": name}
        if kind == "tags":  # the real key order
            o.update({"color": "#a6cee3", "text_color": "#000000"})
        o.update({"match": "", "matching_algorithm": 1, "is_insensitive": True})
        if kind == "tags":
            o["is_inbox_tag"] = False
        o.update({"document_count": 0, "owner": 1, "user_can_change": True})
        if kind == "tags":
            o.update({"parent": None, "children": []})
        self.names[kind][i] = o
        return i

    def add(self, d):
        i = self.next_id
        self.next_id += 1
        stamp = self.tick()
        doc = {
            "id": i,
            "correspondent": self.name_id("correspondents", d.get("correspondent")),
            "document_type": self.name_id("document_types", d.get("document_type")),
            "storage_path": None,
            "title": d.get("title", f"document {i}"),
            "content": d.get("content", ""),
            "tags": sorted(self.name_id("tags", t) for t in d.get("tags", [])),
            "created": d.get("created") or now_utc().date().isoformat(),
            "modified": d.get("modified") or stamp,
            "added": d.get("added") or stamp,
            "deleted_at": None,
            "archive_serial_number": d.get("archive_serial_number"),
            "original_file_name": f"scan_{i:05d}.pdf",
            "archived_file_name": None,
            "duplicate_documents": [],
            # The loader's user owns what it adds unless the record names another owner;
            # whether the token's user may change it is the record's to say (default yes).
            "owner": d.get("owner", 1),
            "user_can_change": d.get("user_can_change", True),
            "is_shared_by_requester": False,
            "notes": [],
            "custom_fields": [],
            "thumb": d.get("thumb"),
            "page_count": 1,
            "mime_type": "application/pdf",
            "root_document": None,
            # 3.x document versions: the original is the root version.
            "versions": [{"id": i, "added": d.get("added") or stamp, "version_label": None,
                          "checksum": hashlib.md5(f"{i}".encode()).hexdigest(), "is_root": True}],
        }
        doc["created_date"] = doc["created"]
        self.docs[i] = doc
        return i

    def update(self, i, fields):
        doc = self.docs[i]
        for k, v in fields.items():
            if k in ("correspondent", "document_type"):
                doc[k] = self.name_id(k + "s", v) if isinstance(v, str) else v
            elif k == "tags":
                doc[k] = sorted({self.name_id("tags", t) if isinstance(t, str) else t for t in v})
            elif k in ("title", "content", "archive_serial_number", "created"):
                doc[k] = v
        doc["modified"] = fields.get("modified") or self.tick()

    def set_custom_fields(self, i, entries):
        """The 3.0.5 PATCH of custom_fields: an error body, or None once done."""
        if not isinstance(entries, list):
            return {"custom_fields": ["Expected a list of items."]}
        new = []
        for e in entries:
            f, v = (e or {}).get("field"), (e or {}).get("value")
            if f not in self.fields:
                return {"custom_fields": [{"field": [f"Invalid pk \"{f}\" - object does not exist."]}]}
            if self.fields[f]["data_type"] == "documentlink" and v is not None:
                if not isinstance(v, list):
                    return {"custom_fields": [{"non_field_errors": ["Value must be a list"]}]}
                if len(set(v)) != len(v) or not all(t in self.docs for t in v):
                    return {"custom_fields": [{"non_field_errors": [
                        "Some documents in value don't exist or were specified twice."]}]}
            new.append({"value": v, "field": f})
        links = lambda lst, f: next((e["value"] or [] for e in lst if e["field"] == f), None)
        old = self.docs[i]["custom_fields"]
        stamp = self.tick()
        for f, fd in self.fields.items():
            if fd["data_type"] != "documentlink":
                continue
            before, after = links(old, f) or [], links(new, f)
            for t in before:
                if after is None or t not in after:
                    self.mirror(t, f, i, add=False, stamp=stamp)
            for t in after or []:
                self.mirror(t, f, i, add=True, stamp=stamp)
        self.docs[i]["custom_fields"] = new
        return None

    def mirror(self, t, f, i, add, stamp):
        doc = self.docs.get(t) or self.trash.get(t)
        if doc is None:
            return
        entry = next((e for e in doc["custom_fields"] if e["field"] == f), None)
        if add and entry is None:
            doc["custom_fields"].append({"value": [i], "field": f})
        elif add and i not in (entry["value"] or []):
            entry["value"] = (entry["value"] or []) + [i]
        elif not add and entry is not None and i in (entry["value"] or []):
            entry["value"] = [x for x in entry["value"] if x != i]
        doc["modified"] = stamp

    def delete(self, ids):
        for i in ids:
            if i in self.docs:
                doc = self.docs.pop(i)
                doc["deleted_at"] = self.tick()
                self.trash[i] = doc


LIB = None


def paginate(handler, items, version, default_size=25):
    """DRF PageNumberPagination as StandardPagination configures it."""
    q = handler.query
    try:
        size = int(q.get("page_size", [default_size])[0])
        size = default_size if size <= 0 else min(size, 100000)
    except ValueError:
        size = default_size
    page_raw = q.get("page", ["1"])[0]
    try:
        page = int(page_raw)
    except ValueError:
        page = 1 if page_raw == "last" else 0
    pages = max(1, -(-len(items) // size))
    if page < 1 or page > pages:
        return 404, {"detail": "Invalid page."}
    chunk = items[(page - 1) * size: page * size]

    def link(p):
        parts = urlsplit(handler.path)
        qs = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if p == 1:
            qs.pop("page", None)
        else:
            qs["page"] = str(p)
        host = handler.headers.get("Host", "127.0.0.1")
        return f"{handler.scheme}://{host}{parts.path}" + ("?" + urlencode(qs) if qs else "")

    out = {"count": len(items), "next": link(page + 1) if page < pages else None,
           "previous": link(page - 1) if page > 1 else None}
    if int(version) < 10:
        out["all"] = [o["id"] for o in items]
    out["results"] = chunk
    return 200, out


def doc_list(handler, version):
    q = handler.query
    docs = list(LIB.docs.values())
    errors = {}

    def ids(name):
        raw = q.get(name, [""])[0]
        try:
            return {int(x) for x in raw.split(",") if x.strip()}
        except ValueError:
            errors[name] = ["Enter a number."]
            return set()

    if "id__in" in q:
        wanted = ids("id__in")
        docs = [d for d in docs if d["id"] in wanted]
    if "id" in q:
        wanted = ids("id")
        docs = [d for d in docs if d["id"] in wanted]
    if "tags__id__all" in q:
        wanted = ids("tags__id__all")
        docs = [d for d in docs if wanted <= set(d["tags"])]
    for field in ("modified", "added"):
        for op, cmp in (("gt", lambda a, b: a > b), ("gte", lambda a, b: a >= b),
                        ("lt", lambda a, b: a < b), ("lte", lambda a, b: a <= b)):
            key = f"{field}__{op}"
            if key in q:
                t = parse_dt(q[key][0])
                if t is None:
                    errors[key] = ["Enter a valid date/time."]
                    continue
                docs = [d for d in docs if cmp(parse_dt(d[field]), t)]
    if errors:
        return 400, errors
    ordering = q.get("ordering", ["-created"])[0]
    key = ordering.lstrip("-")
    if key not in ("id", "title", "created", "modified", "added", "archive_serial_number",
                   "page_count"):
        key, ordering = "created", "-created"
    # Ties keep insertion order, like an unordered SQL sort: only `id` is unique.
    docs.sort(key=lambda d: (d[key] is None, d[key] if d[key] is not None else 0),
              reverse=ordering.startswith("-"))
    status, body = paginate(handler, docs, version)
    if status == 200 and "fields" in q:
        wanted = [f for f in q["fields"][0].split(",") if f]
        body["results"] = [{k: d[k] for k in DOC_FIELDS if k in wanted and k in d}
                           for d in body["results"]]
    elif status == 200:
        body["results"] = [{k: d[k] for k in DOC_FIELDS} for d in body["results"]]
    return status, body


def check_docs(body, name="documents"):
    docs = body.get(name)
    if not isinstance(docs, list) or not all(isinstance(i, int) for i in docs):
        return {name: [f"{name} must be a list of integers"]}
    if len(set(docs)) != len(docs) or not all(i in LIB.docs for i in docs):
        return {name: [f"Some documents in {name} don't exist or were specified twice."]}
    return None


def forbidden(ids):
    """Paperless answers 403 to a change of a document the token's user may not change."""
    if any(not LIB.docs[i]["user_can_change"] for i in ids if i in LIB.docs):
        return 403, {"detail": "You do not have permission to perform this action."}
    return None


def bulk_edit(body):
    err = check_docs(body)
    if err:
        return 400, err
    if forbidden(body["documents"]):
        return forbidden(body["documents"])
    method = body.get("method")
    p = body.get("parameters") or {}
    docs = [LIB.docs[i] for i in body["documents"]]

    def tag_ok(t):
        return isinstance(t, int) and t in LIB.names["tags"]

    if method == "add_tag":
        if not tag_ok(p.get("tag")):
            return 400, {"non_field_errors": ["Tag does not exist"]}
        for d in docs:
            LIB.update(d["id"], {"tags": set(d["tags"]) | {p["tag"]}})
    elif method == "remove_tag":
        if not tag_ok(p.get("tag")):
            return 400, {"non_field_errors": ["Tag does not exist"]}
        for d in docs:
            LIB.update(d["id"], {"tags": set(d["tags"]) - {p["tag"]}})
    elif method == "modify_tags":
        add, rem = p.get("add_tags", []), p.get("remove_tags", [])
        if not all(tag_ok(t) for t in add + rem):
            return 400, {"non_field_errors": ["Some tags in add_tags don't exist or were specified twice."]}
        for d in docs:
            LIB.update(d["id"], {"tags": (set(d["tags"]) | set(add)) - set(rem)})
    elif method in ("set_correspondent", "set_document_type"):
        kind = method[4:]
        v = p.get(kind)
        if v is not None and v not in LIB.names[kind + "s"]:
            return 400, {"non_field_errors": [f"{kind.replace('_', ' ').capitalize()} does not exist"]}
        for d in docs:
            LIB.update(d["id"], {kind: v})
    elif method == "delete":
        LIB.delete(body["documents"])
    else:
        return 400, {"method": [f"\"{method}\" is not a valid choice."]}
    return 200, {"result": "OK"}


def api(handler, method, path, version, body):
    if path == "/api/documents/" and method == "GET":
        return doc_list(handler, version)
    m = re.fullmatch(r"/api/documents/(\d+)/", path)
    if m:
        i = int(m.group(1))
        if i not in LIB.docs:
            return 404, {"detail": "No Document matches the given query."}
        if method == "GET":
            return 200, {k: LIB.docs[i][k] for k in DOC_FIELDS}
        if method in ("PATCH", "DELETE") and forbidden([i]):
            return forbidden([i])
        if method == "PATCH":
            if "custom_fields" in (body or {}):
                err = LIB.set_custom_fields(i, body["custom_fields"])
                if err:
                    return 400, err
            LIB.update(i, body or {})
            return 200, {k: LIB.docs[i][k] for k in DOC_FIELDS}
        if method == "DELETE":
            LIB.delete([i])
            return 204, None
    m = re.fullmatch(r"/api/documents/(\d+)/notes/", path)
    if m:
        i = int(m.group(1))
        if i not in LIB.docs:
            return 404, {"detail": "No Document matches the given query."}
        doc = LIB.docs[i]
        if method in ("POST", "DELETE") and forbidden([i]):
            return forbidden([i])
        if method == "POST":
            text = (body or {}).get("note")
            if not isinstance(text, str):
                return 200, {"error": "Error saving note, check logs for more detail."}
            doc["notes"].append({"id": LIB.next_note_id, "note": text, "created": LIB.tick(),
                                 "user": {"id": 1, "username": "admin"}})
            LIB.next_note_id += 1
            doc["modified"] = LIB.tick()
        elif method == "DELETE":
            try:
                n = int(handler.query.get("id", [""])[0])
            except ValueError:
                return 400, {"id": "A valid integer is required."}
            if not any(x["id"] == n for x in doc["notes"]):
                return 404, {"detail": "No Note matches the given query."}
            doc["notes"] = [x for x in doc["notes"] if x["id"] != n]
            doc["modified"] = LIB.tick()
        return 200, sorted(doc["notes"], key=lambda x: x["created"], reverse=True)
    if path == "/api/custom_fields/":
        if method == "GET":
            items = sorted(LIB.fields.values(), key=lambda o: o["name"].lower())
            return paginate(handler, items, version)
        if method == "POST":
            name, kind = (body or {}).get("name"), (body or {}).get("data_type")
            if not isinstance(name, str) or not name.strip():
                return 400, {"name": ["This field is required."]}
            if kind not in ("string", "url", "date", "boolean", "integer", "float", "monetary",
                            "documentlink", "select", "longtext"):
                return 400, {"data_type": [f"\"{kind}\" is not a valid choice."]}
            if any(o["name"] == name for o in LIB.fields.values()):
                return 400, {"error": "Object violates name unique constraint"}
            i = max(LIB.fields, default=0) + 1
            LIB.fields[i] = {"id": i, "name": name, "data_type": kind, "extra_data": {},
                             "document_count": 0}
            return 201, LIB.fields[i]
    if path == "/api/documents/bulk_edit/" and method == "POST":
        return bulk_edit(body or {})
    if path == "/api/documents/delete/" and method == "POST" and not LIB.release.startswith("2."):
        err = check_docs(body or {})
        if err:
            return 400, err
        if forbidden(body["documents"]):
            return forbidden(body["documents"])
        LIB.delete(body["documents"])
        return 200, {"result": "OK"}
    if path == "/api/trash/":
        if method == "GET":
            items = sorted(LIB.trash.values(), key=lambda d: d["deleted_at"], reverse=True)
            status, out = paginate(handler, items, version)
            if status == 200:
                out["results"] = [{k: d[k] for k in DOC_FIELDS} for d in out["results"]]
            return status, out
        if method == "POST":
            action = (body or {}).get("action")
            ids = (body or {}).get("documents")
            if action not in ("restore", "empty"):
                return 400, {"action": [f"\"{action}\" is not a valid choice."]}
            if ids is not None and not all(i in LIB.trash for i in ids):
                return 400, {"documents": ["Some documents in the list have not yet been deleted."]}
            targets = list(LIB.trash) if ids is None else ids
            for i in targets:
                doc = LIB.trash.pop(i)
                if action == "restore":
                    # The real restore saves the document, which bumps `modified`.
                    doc["deleted_at"] = None
                    doc["modified"] = LIB.tick()
                    LIB.docs[i] = doc
            return 200, {"result": "OK", "doc_ids": ids if ids is not None else targets}
    m = re.fullmatch(r"/api/(tags|correspondents|document_types)/(\d+)/", path)
    if m:
        kind, i = m.group(1), int(m.group(2))
        if i not in LIB.names[kind]:
            return 404, {"detail": "No " + kind[:-1].replace("_", " ").title().replace(" ", "") + " matches the given query."}
        if method == "GET":
            return 200, LIB.names[kind][i]
        if method == "DELETE":
            # The real delete drops the object's links from every document, trashed ones too,
            # without touching their `modified`.
            del LIB.names[kind][i]
            for d in list(LIB.docs.values()) + list(LIB.trash.values()):
                if kind == "tags":
                    d["tags"] = [t for t in d["tags"] if t != i]
                elif d[kind[:-1]] == i:
                    d[kind[:-1]] = None
            return 204, None
    for kind in KINDS:
        if path == f"/api/{kind}/":
            if method == "GET":
                counts = {}
                for d in LIB.docs.values():
                    refs = d["tags"] if kind == "tags" else [d[kind[:-1]]]
                    for r in refs:
                        counts[r] = counts.get(r, 0) + 1
                items = sorted(LIB.names[kind].values(), key=lambda o: o["name"].lower())
                items = [dict(o, document_count=counts.get(o["id"], 0)) for o in items]
                status, out = paginate(handler, items, version)
                if status == 200 and kind == "tags":
                    out["display_count"] = len(items)  # 3.x tags list (tag hierarchy)
                return status, out
            if method == "POST":
                name = (body or {}).get("name")
                if not isinstance(name, str) or not name.strip():
                    return 400, {"name": ["This field is required."]}
                if LIB.name_id(kind, name, create=False) is not None:
                    return 400, {"error": f"Object violates owner / name unique constraint"}
                i = LIB.name_id(kind, name)
                return 201, LIB.names[kind][i]
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body go out in two writes: with Nagle's algorithm the body waited for
    # the client's delayed ACK of the head, 40 ms per request on Linux, which no real server
    # (their event loops set TCP_NODELAY) adds, and which hid every other cost in
    # scripts/bench/watch.py.
    disable_nagle_algorithm = True
    scheme = "http"

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="application/json", headers=(), truncate=False):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode())
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Vary", "Accept, Accept-Language, origin, Cookie")
        for k, v in headers:
            self.send_header(k, v)
        if truncate:
            self.send_header("Connection", "close")
        self.end_headers()
        if truncate:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return None, None
        try:
            return json.loads(raw), None
        except ValueError as e:
            return None, {"detail": f"JSON parse error - {e}"}

    def handle_any(self, method):
        parts = urlsplit(self.path)
        path = parts.path
        self.query = parse_qs(parts.query, keep_blank_values=True)
        body, body_err = self.read_body()
        if path == "/__control__":
            return self.control(method, body)
        with LOCK:
            LIB.requests.append({"method": method, "path": self.path,
                                 "accept": self.headers.get("Accept", ""),
                                 "auth": "Authorization" in self.headers})
            fault = self.take_fault(path, method)
        if fault and self.apply_fault(fault):
            return
        if not path.startswith("/api/") or path == "/api/":
            # Unknown and UI paths send browsers to the login page, as the real server does.
            self.send_response(302)
            self.send_header("Location", f"/accounts/login/?next={path}")
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if (method, path) == ("POST", "/api/token/"):
            # The password login of the docs: any user name, the password PASSWORD.
            if isinstance(body, dict) and body.get("password") == PASSWORD and body.get("username"):
                return self.send(200, {"token": LIB.token})
            return self.send(400, {"non_field_errors": ["Unable to log in with provided credentials."]})
        with LOCK:
            # DRF checks the version before authentication, so a 406 carries no X-Api-Version.
            m = re.search(r"version\s*=\s*([^;,\s]+)", self.headers.get("Accept", ""))
            version = m.group(1) if m else LIB.default_version
            if version not in LIB.allowed:
                return self.send(406, {"detail": "Invalid version in \"Accept\" header."})
            auth = self.headers.get("Authorization")
            if not auth:
                return self.send(401, {"detail": "Authentication credentials were not provided."},
                                 headers=[("WWW-Authenticate", "Token")])
            kw, _, tok = auth.partition(" ")
            if kw.lower() != "token" or tok.strip() != LIB.token:
                return self.send(401, {"detail": "Invalid token."},
                                 headers=[("WWW-Authenticate", "Token")])
            hdrs = [("X-Api-Version", LIB.allowed[-1]), ("X-Version", LIB.release)]
            if body_err:
                return self.send(400, body_err, headers=hdrs)
            m = re.fullmatch(r"/api/documents/(\d+)/thumb/", path)
            if m and method == "GET":
                doc = LIB.docs.get(int(m.group(1))) or LIB.trash.get(int(m.group(1)))
                if not doc or not doc.get("thumb"):
                    return self.send(404, {"detail": "Not found."}, headers=hdrs)
                t = doc["thumb"]
                return self.send(200, base64.b64decode(t["b64"]), ctype=t.get("ctype", "image/webp"),
                                 headers=hdrs)
            result = api(self, method, path, version, body)
            if result is None:
                if re.fullmatch(r"/api/(documents|tags|correspondents|document_types|trash)/.*", path):
                    return self.send(405 if path.count("/") <= 3 else 404,
                                     {"detail": f"Method \"{method}\" not allowed."} if path.count("/") <= 3
                                     else {"detail": "Not found."}, headers=hdrs)
                self.send_response(302)
                self.send_header("Location", f"/accounts/login/?next={path}")
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, out = result
        if fault and fault["kind"] == "slow":
            # The change has landed; its answer comes late (after the client gave up?).
            time.sleep(fault.get("seconds", 5))
            if "status" in fault:
                return self.send(fault["status"], b"<h1>Server Error</h1>", ctype="text/html")
        self.send(status, out, headers=hdrs)

    def take_fault(self, path, method):
        for f in LIB.faults:
            if f["count"] > 0 and f.get("path", "") in self.path and f.get("method", method) == method:
                if f["kind"] == "mutate":
                    page = int(self.query.get("page", ["1"])[0] or 1)
                    if path != "/api/documents/" or page != f.get("page", 2):
                        continue
                if f.get("after", 0) > 0:
                    f["after"] -= 1
                    continue
                f["count"] -= 1
                return dict(f)
        return None

    def apply_fault(self, f):
        """Returns True when the fault answered the request itself."""
        kind = f["kind"]
        if kind == "status":
            self.send(f.get("status", 500), b"<h1>Server Error (500)</h1>", ctype="text/html")
            return True
        if kind == "429":
            self.send(429, {"detail": "Request was throttled. Expected available in 1 second."},
                      headers=[("Retry-After", str(f.get("retry_after", 1)))])
            return True
        if kind == "delay":
            time.sleep(f.get("seconds", 5))
            return False
        if kind == "gather":
            try:
                f["barrier"].wait(timeout=f.get("seconds", 10))
            except threading.BrokenBarrierError:
                pass
            return False
        if kind == "html":
            self.send(200, LOGIN_PAGE, ctype="text/html; charset=utf-8")
            return True
        if kind == "drip":
            # `pad` spaces first (valid JSON) make the answer last `pad` intervals longer.
            data = b" " * f.get("pad", 0) + b'{"count":0,"next":null,"previous":null,"all":[],"results":[]}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.flush()
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(f.get("interval", 0.5))
            return True
        if kind == "huge":
            head, tail = b'{"count":0,"next":null,"previous":null,"results":[],"pad":"', b'"}'
            n = f.get("mb", 3) << 20
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(head) + n + len(tail)))
            self.end_headers()
            self.wfile.write(head)
            chunk = b"x" * (1 << 16)
            for _ in range(n >> 16):
                self.wfile.write(chunk)
            self.wfile.write(tail)
            return True
        if kind == "echo":
            auth = self.headers.get("Authorization", "")
            if f.get("upper"):
                auth = auth.upper()
            if f.get("base64"):
                auth = base64.b64encode(auth.encode()).decode()
            status = f.get("status", 401)
            hdrs = [("X-Echo", auth)]
            if 300 <= status < 400:
                hdrs.append(("Location", f"/accounts/login/?auth={auth}"))
            body = json.dumps({"detail": f"Invalid token: {auth}"}, separators=(",", ":"))
            if f.get("escape_slash"):
                body = body.replace("/", "\\/")  # as PHP's and some Java encoders write JSON
            body = "x" * f.get("pad", 0) + body
            self.send(status, body.encode(), ctype=f.get("ctype", "application/json"), headers=hdrs)
            return True
        if kind == "redirect":
            self.send_response(f.get("status", 302))
            self.send_header("Location", f["location"] + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        if kind == "truncate":
            with LOCK:
                status, out = doc_list(self, LIB.default_version) if urlsplit(self.path).path == "/api/documents/" \
                    else (200, {"count": 0, "next": None, "previous": None, "results": []})
            self.send(status, out, truncate=True)
            return True
        if kind == "close":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return True
        if kind == "mutate":
            with LOCK:
                LIB.delete(f.get("delete", []))
                for d in f.get("add", []):
                    LIB.add(d)
            return False
        return False

    def control(self, method, body):
        with LOCK:
            if method == "GET":
                return self.send(200, {"requests": LIB.requests, "docs": len(LIB.docs),
                                       "faults": sum(f["count"] for f in LIB.faults)})
            b = body or {}
            a = b.get("action")
            if a == "reset":
                LIB.reset()
                return self.send(200, {"result": "OK"})
            if a == "add":
                return self.send(200, {"ids": [LIB.add(d) for d in b.get("docs", [])]})
            if a == "update":
                i = b.pop("id")
                b.pop("action")
                if i not in LIB.docs:
                    return self.send(404, {"detail": "no such document"})
                LIB.update(i, b)
                return self.send(200, {"result": "OK", "modified": LIB.docs[i]["modified"]})
            if a == "access":
                # A bulk edit of permissions: owner and user_can_change, `modified` untouched.
                if b["id"] not in LIB.docs:
                    return self.send(404, {"detail": "no such document"})
                for k in ("owner", "user_can_change"):
                    if k in b:
                        LIB.docs[b["id"]][k] = b[k]
                return self.send(200, {"result": "OK"})
            if a == "delete":
                LIB.delete(b.get("ids", []))
                return self.send(200, {"result": "OK"})
            if a == "rename":
                i = LIB.name_id(b["kind"], b["old"], create=False)
                if i is None:
                    return self.send(404, {"detail": "no such name"})
                LIB.names[b["kind"]][i]["name"] = b["new"]
                return self.send(200, {"result": "OK"})
            if a == "versions":
                LIB.allowed = b.get("allowed", ["9", "10"])
                LIB.default_version = b.get("default", LIB.allowed[-1])
                return self.send(200, {"result": "OK"})
            if a == "release":
                LIB.release = str(b.get("release", "3.0.5"))
                return self.send(200, {"result": "OK"})
            if a == "fault":
                f = {k: v for k, v in b.items() if k != "action"}
                f.setdefault("count", 1)
                if f.get("kind") == "gather":
                    f["barrier"] = threading.Barrier(f["count"])
                LIB.faults.append(f)
                return self.send(200, {"result": "OK"})
            if a == "clear_faults":
                LIB.faults = []
                return self.send(200, {"result": "OK"})
            if a == "clear_log":
                LIB.requests = []
                return self.send(200, {"result": "OK"})
            return self.send(400, {"detail": f"unknown action {a!r}"})


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that gave up (timeout, killed) is part of the tests, not a server fault.
        if isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def main():
    global LIB
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--token", default="test-token-0123456789abcdef")
    ap.add_argument("--certfile")
    ap.add_argument("--keyfile")
    args = ap.parse_args()
    LIB = Library(args.token)
    srv = Server(("127.0.0.1", 0), Handler)
    if args.certfile:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.certfile, args.keyfile)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        Handler.scheme = "https"
    print(f"PORT {srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
