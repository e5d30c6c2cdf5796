#!/usr/bin/env bash
# End-to-end test of pl-fetch against the real Paperless-NGX 3.0.5 backend (../shared/paperless/real):
# load the example corpus, full sync, change and delete documents through the REST API,
# incremental syncs, restore from the trash; every output is checked against the corpus and
# against a fresh full sync. Exits non-zero on any mismatch.
#
# env: PAPERLESS_REAL_STATE  state dir for setup.sh (default /tmp/pl-real-paperless; its Python
#                            venv is reused when present, the library is emptied every run)
#      PAPERLESS_REAL_DIR    the backend's scripts (default ../shared/paperless/real)
#      DOCS                  corpus to load (default examples/docs.ndjson)
#      BIN                   where pl-fetch is (default target/release)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REAL=${PAPERLESS_REAL_DIR:-$ROOT/../shared/paperless/real}
STATE=$(readlink -m "${PAPERLESS_REAL_STATE:-/tmp/pl-real-paperless}")
DOCS=$(readlink -m "${DOCS:-$ROOT/examples/docs.ndjson}")
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
FETCH="$BIN/pl-fetch"
[ -x "$FETCH" ] || { echo "no $FETCH: build it first (cargo build --release -p pl-cli)" >&2; exit 1; }
[ -d "$REAL" ] || { echo "no Paperless backend at $REAL (set PAPERLESS_REAL_DIR)" >&2; exit 1; }

W=$(mktemp -d)
cleanup() { "$REAL/stop.sh" "$STATE" >/dev/null 2>&1 || true; rm -rf "$W"; }
trap cleanup EXIT
step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "setting up Paperless-NGX in $STATE (an empty library)"
"$REAL/stop.sh" "$STATE" >/dev/null 2>&1 || true
rm -rf "$STATE/data" "$STATE/media" "$STATE/consume"
"$REAL/setup.sh" "$STATE" >/dev/null
TOKEN_FILE="$STATE/token"

step "loading $(wc -l < "$DOCS") documents from $DOCS"
(. "$STATE/env.sh" && cd "$STATE/src/src" && "$STATE/venv/bin/python" manage.py shell -c \
  "import sys; sys.argv=['', '$DOCS']; exec(open('$REAL/load_docs.py').read())") \
  | grep -E '^[0-9]+$' > "$W/ids"
[ "$(wc -l < "$W/ids")" -eq "$(grep -c . "$DOCS")" ] || fail "load_docs.py did not load every document"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$REAL/start.sh" "$STATE" "$PORT" >/dev/null
export PAPERLESS_URL="http://127.0.0.1:$PORT"
unset PAPERLESS_TOKEN
LOG="$STATE/logs/server.log"

# The token goes to curl on stdin as a header, never on a command line.
api() { # METHOD PATH [JSON]
  local args=(-sS -o "$W/resp" -w '%{http_code}' -X "$1" -H @- -H 'Accept: application/json; version=9')
  [ $# -ge 3 ] && args+=(-H 'Content-Type: application/json' --data "$3")
  printf 'Authorization: Token %s\n' "$(cat "$TOKEN_FILE")" | curl "${args[@]}" "$PAPERLESS_URL$2"
}
expect_status() { # WANT METHOD PATH [JSON]
  local want=$1; shift
  local got; got=$(api "$@")
  [ "$got" = "$want" ] || fail "$1 $2 answered $got, expected $want: $(head -c 300 "$W/resp")"
}
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
          "page_count", "mime_type", "url"]
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
    if list(r) != fields:
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
grep -qF "$(cat "$TOKEN_FILE")" "$W/docs.ndjson" "$W/docs.ndjson.state.json" "$W"/*.err && fail "the token was written out"

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

echo "real-paperless-test: all checks passed ($(grep -o 'server [^,]*' "$W/same.err"))"
