#!/usr/bin/env bash
# End-to-end test of pl-fetch against the real Paperless-NGX 3.0.5 backend (../shared/paperless/real):
# load the example corpus, full sync, change and delete documents through the REST API,
# incremental syncs, restore from the trash; every output is checked against the corpus and
# against a fresh full sync. Exits non-zero on any mismatch.
#
# env: PAPERLESS_REAL_STATE, PAPERLESS_REAL_DIR   see scripts/real-paperless-lib.sh
#      DOCS                  corpus to load (default examples/docs.ndjson)
#      BIN                   where pl-fetch is (default target/release)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/real-paperless-lib.sh"
DOCS=$(readlink -m "${DOCS:-$ROOT/examples/docs.ndjson}")
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
FETCH="$BIN/pl-fetch"
[ -x "$FETCH" ] || { echo "no $FETCH: build it first (cargo build --release -p pl-cli)" >&2; exit 1; }

step "setting up Paperless-NGX in $STATE (an empty library)"
real_reset

step "loading $(wc -l < "$DOCS") documents from $DOCS"
real_load "$DOCS" "$W/ids"

real_start

run_fetch() { # NAME ARGS... ; stderr kept in $W/NAME.err
  local name=$1; shift
  "$FETCH" --token-file "$TOKEN_FILE" "$@" 2> "$W/$name.err" || { cat "$W/$name.err" >&2; fail "pl-fetch $name"; }
  cat "$W/$name.err"
}
expect_counts() { # NAME "new N, changed N, deleted N, unchanged N"
  grep -qxF "pl-fetch: $2" "$W/$1.err" || fail "$1: expected '$2', got: $(grep 'new ' "$W/$1.err")"
}
same_as_full() { # NAME: the incremental output equals a fresh full sync, byte for byte
  run_fetch "$1-full" --full -o "$W/$1-full.ndjson" >/dev/null
  cmp -s "$W/docs.ndjson" "$W/$1-full.ndjson" || fail "$1: incremental output differs from a full sync"
}
check() { # what the output must hold, checked against the corpus
  python3 - "$DOCS" "$W/ids" "$W/docs.ndjson" "$PAPERLESS_URL" "$@" <<'PY'
import json, sys
docs_path, ids_path, out_path, base, *expect = sys.argv[1:]
corpus = [json.loads(l) for l in open(docs_path, encoding="utf-8") if l.strip()]
ids = [int(l) for l in open(ids_path)]
by_id = dict(zip(ids, corpus))
out = [json.loads(l) for l in open(out_path, encoding="utf-8")]
fields = ["id", "title", "content", "created", "added", "modified", "correspondent",
          "document_type", "tags", "archive_serial_number", "original_file_name",
          "page_count", "mime_type", "url", "owner", "user_can_change"]
errors = []
got = [r["id"] for r in out]
if got != sorted(got) or len(set(got)) != len(got):
    errors.append("ids not sorted and unique")
exp = json.loads(expect[0]) if expect else {}
gone = set(exp.get("gone", []))
alive = set(ids) - gone
if set(got) != alive:
    errors.append(f"ids differ: missing {sorted(alive - set(got))[:10]}, "
                  f"extra {sorted(set(got) - alive)[:10]}")
for r in out:
    # permissions: listed where the token may see them (the admin's token here).
    if list(r) != fields + ["permissions"] or sorted(r["permissions"]) != ["change", "view"]:
        errors.append(f"{r['id']}: fields {list(r)}")
        break
    d = by_id.get(r["id"])
    if d is None:
        continue
    want = {"title": d["title"], "content": d["content"], "correspondent": d.get("correspondent"),
            "document_type": d.get("document_type"), "tags": sorted(set(d.get("tags", []))),
            "created": d.get("created"), "url": f"{base}/documents/{r['id']}/details",
            "mime_type": "application/pdf", "page_count": 1}
    change = exp.get("changed", {}).get(str(r["id"]), {})
    if "tags_has" in change:
        want["tags"] = sorted(set(want["tags"]) | {change["tags_has"]})
    want.update({k: v for k, v in change.items() if k != "tags_has"})
    for k, v in want.items():
        if k == "created" and v is None:
            continue
        elif r[k] != v:
            errors.append(f"{r['id']}: {k} is {str(r[k])[:60]!r}, expected {str(v)[:60]!r}")
if errors:
    print("\n".join(errors[:20]), file=sys.stderr)
    sys.exit(1)
print(f"   {len(out)} records match")
PY
}

N=$(wc -l < "$W/ids")
mapfile -t ID < "$W/ids"

step "full sync"
run_fetch full -o "$W/docs.ndjson"
expect_counts full "new $N, changed 0, deleted 0, unchanged 0"
check || fail "full sync output"
[ -f "$W/docs.ndjson.state.json" ] || fail "no state file"
no_token_in "$W/docs.ndjson" "$W/docs.ndjson.state.json" "$W"/*.err

step "full sync with API version 9 (what 2.x servers speak) gives the same bytes"
run_fetch v9 --api-version 9 -o "$W/v9.ndjson" >/dev/null
cmp -s "$W/docs.ndjson" "$W/v9.ndjson" || fail "version 9 output differs"

step "nothing changed: incremental sync"
SEEN=$(wc -l < "$LOG")
run_fetch same -v -o "$W/docs.ndjson"
expect_counts same "new 0, changed 0, deleted 0, unchanged $N"
grep -q 'incremental sync' "$W/same.err" || fail "not an incremental sync"
tail -n +"$((SEEN + 1))" "$LOG" | grep -q 'modified__gt=' || fail "no modified__gt query in the server log"

step "changing and deleting documents through the API"
A=${ID[0]}; B=${ID[1]}; C=${ID[2]}; D=${ID[3]}
expect_status 200 PATCH "/api/documents/$A/" '{"content": "rewritten by the real-paperless test"}'
expect_status 201 POST /api/tags/ '{"name": "pl-real-test"}'
TAG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$W/resp")
expect_status 200 POST /api/documents/bulk_edit/ "{\"documents\": [$B], \"method\": \"add_tag\", \"parameters\": {\"tag\": $TAG}}"
expect_status 200 POST /api/documents/delete/ "{\"documents\": [$C]}"
expect_status 204 DELETE "/api/documents/$D/"
run_fetch incr -v -o "$W/docs.ndjson"
expect_counts incr "new 0, changed 2, deleted 2, unchanged $((N - 4))"
grep -q 'incremental sync' "$W/incr.err" || fail "not an incremental sync"
check "{\"gone\": [$C, $D], \"changed\": {\"$A\": {\"content\": \"rewritten by the real-paperless test\"}, \"$B\": {\"tags_has\": \"pl-real-test\"}}}" \
  || fail "incremental output"
same_as_full incr

step "restoring a document from the trash"
expect_status 200 POST /api/trash/ "{\"action\": \"restore\", \"documents\": [$D]}"
run_fetch restore -v -o "$W/docs.ndjson"
expect_counts restore "new 1, changed 0, deleted 0, unchanged $((N - 2))"
check "{\"gone\": [$C], \"changed\": {\"$A\": {\"content\": \"rewritten by the real-paperless test\"}, \"$B\": {\"tags_has\": \"pl-real-test\"}}}" \
  || fail "output after restore"
same_as_full restore

step "a wrong token is one clear line and leaves the output alone"
cp "$W/docs.ndjson" "$W/before.ndjson"
echo "0000000000000000000000000000000000000000" > "$W/bad-token"
if "$FETCH" --token-file "$W/bad-token" -o "$W/docs.ndjson" 2> "$W/bad.err"; then fail "a bad token was accepted"; fi
grep -q 'HTTP 401' "$W/bad.err" || fail "no 401 message: $(cat "$W/bad.err")"
cmp -s "$W/docs.ndjson" "$W/before.ndjson" || fail "a failed run changed the output"

step "the test server (tests/paperless_server.py) answers with the real server's shapes"
python3 "$ROOT/tests/paperless_server.py" --token "test-token-for-shapes" > "$W/test-server.out" &
TEST_PID=$!
trap 'kill $TEST_PID 2>/dev/null || true; real_cleanup' EXIT
for _ in $(seq 1 50); do grep -q '^PORT ' "$W/test-server.out" 2>/dev/null && break; sleep 0.1; done
TEST_URL="http://127.0.0.1:$(awk '/^PORT /{print $2}' "$W/test-server.out")"
python3 - "$PAPERLESS_URL" "$TOKEN_FILE" "$TEST_URL" <<'PY' || fail "the test server disagrees with the real one"
import json, sys, urllib.error, urllib.request
real_url, token_file, test_url = sys.argv[1:]
real = (real_url, open(token_file).read().strip())
test = (test_url, "test-token-for-shapes")

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None

def call(srv, method, path, body=None, version=9, token=True):
    h = {"Accept": f"application/json; version={version}"}
    if token:
        h["Authorization"] = f"Token {srv[1]}"
    data = None if body is None else json.dumps(body).encode()
    if data:
        h["Content-Type"] = "application/json"
    req = urllib.request.Request(srv[0] + path, data=data, method=method, headers=h)
    try:
        r = urllib.request.build_opener(NoRedirect).open(req)
    except urllib.error.HTTPError as e:
        r = e
    raw = r.read()
    try:
        js = json.loads(raw)
    except ValueError:
        js = None
    return (r.status, r.headers.get("Content-Type"), "X-Api-Version" in r.headers, shape(js))

def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(v[0])] if v else []
    return type(v).__name__

# Give the test server what the real one holds by now: two names of each kind, a trashed document.
ctl = lambda body: urllib.request.urlopen(urllib.request.Request(
    test_url + "/__control__", data=json.dumps(body).encode(), method="POST")).read()
ctl({"action": "add", "docs": [
    {"title": "a", "content": "x", "tags": ["t1", "t2"], "correspondent": "c1", "document_type": "d1"},
    {"title": "b", "content": "y", "tags": ["t2"], "correspondent": "c2", "document_type": "d2"},
    {"title": "c", "content": "z", "tags": ["t1"], "correspondent": "c1", "document_type": "d1"}]})
ctl({"action": "delete", "ids": [3]})
cases = [
    ("GET", "/api/documents/?page_size=1&ordering=id", None, 9),
    ("GET", "/api/documents/?page_size=1&ordering=id", None, 10),
    ("GET", "/api/documents/?page_size=1&ordering=id&fields=id,title,tags,modified", None, 10),
    ("GET", "/api/documents/?page_size=1&ordering=id&fields=id&modified__gt=2000-01-01T00:00:00Z", None, 9),
    ("GET", "/api/documents/?modified__gt=2000-01-01T00:00:00+00:00", None, 10),
    ("GET", "/api/documents/?page=9999", None, 10),
    ("GET", "/api/documents/?page_size=1", None, 99),
    ("GET", "/api/documents/999999/", None, 10),
    ("GET", "/api/tags/?page_size=1", None, 9),
    ("GET", "/api/correspondents/?page_size=1", None, 10),
    ("GET", "/api/document_types/?page_size=1", None, 10),
    ("GET", "/api/trash/?page_size=1", None, 10),
    ("POST", "/api/documents/bulk_edit/", {"documents": [999999], "method": "add_tag", "parameters": {"tag": 1}}, 10),
    ("POST", "/api/documents/bulk_edit/", {"documents": [1], "method": "nope", "parameters": {}}, 10),
    ("POST", "/api/documents/bulk_edit/", {"documents": [1], "method": "add_tag", "parameters": {"tag": 999999}}, 10),
    ("POST", "/api/documents/delete/", {"documents": [999999]}, 10),
    ("POST", "/api/trash/", {"action": "restore", "documents": [999999]}, 10),
    ("POST", "/api/tags/", {}, 10),
    ("GET", "/api/nothing/", None, 10),
]
bad = 0
for m, p, b, v in cases:
    r, t = call(real, m, p, b, v), call(test, m, p, b, v)
    if r != t:
        bad += 1
        print(f"   {m} {p} (version {v}):\n     real {r}\n     test {t}", file=sys.stderr)
for tok in (False, "wrong"):
    srvs = [(real[0], "wrong"), (test[0], "wrong")] if tok else [real, test]
    r, t = (call(s, "GET", "/api/documents/", token=bool(tok)) for s in srvs)
    if r != t:
        bad += 1
        print(f"   token {tok}: real {r}, test {t}", file=sys.stderr)
print(f"   {len(cases) + 2 - bad} of {len(cases) + 2} answers alike")
sys.exit(1 if bad else 0)
PY

echo "real-paperless-test: all checks passed ($(grep -o 'server [^,]*' "$W/same.err"))"
