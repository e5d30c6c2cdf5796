#!/usr/bin/env bash
# End-to-end test of pl-watch, the webhook service, against the real Paperless-NGX 3.0.5 backend
# (../shared/paperless/real): the example corpus is loaded and indexed (pl-fetch, pl-index);
# pl-watch runs on a free port; a workflow with a webhook action (trigger Document Updated, the
# body {"doc_id": "{{doc_id}}"}, the header X-PL-Secret) is created through the API. The backend
# has no consumer (no Redis, no OCR), so documents are not added by upload: a document's content
# is PATCHed into a copy of another's, which fires Document Updated; Paperless itself posts the
# webhook (its Celery tasks run inside the request), and the document gets the tag
# possible-duplicate and a note naming the original, through the API, and (--link) the
# "Duplicate of" document link to it, seen from both documents (Paperless mirrors it) and not
# added twice by another webhook for the same document. A document edited into a text like no
# other gets none of them. That document, deleted through the API, is taken out of the index by
# pl-watch's sync (--sync-every 2). The token and the secret are in no log.
#
# env: PAPERLESS_REAL_STATE, PAPERLESS_REAL_DIR   see scripts/real-paperless-lib.sh
#      BIN                   where the pl-* tools are (default target/release)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/real-paperless-lib.sh"
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
for t in pl-fetch pl-index pl-watch; do
  [ -x "$BIN/$t" ] || { echo "no $BIN/$t: build it first (cargo build --release -p pl-cli)" >&2; exit 1; }
done

step "setting up Paperless-NGX in $STATE (an empty library) and loading the example corpus"
real_reset
real_load "$ROOT/examples/docs.ndjson" "$W/ids"
real_start

step "indexing the library (pl-fetch, pl-index)"
"$BIN/pl-fetch" --token-file "$TOKEN_FILE" --full -o "$W/docs.ndjson" -q
"$BIN/pl-index" --index "$W/index" "$W/docs.ndjson" -q -o /dev/null
# A document the pipeline groups with no other (the edited one), and one it does (its text copied).
python3 - "$W/docs.ndjson" "$W" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
w = sys.argv[2]
target, original = docs[0]["id"], docs[-1]["id"]
open(f"{w}/target", "w").write(f"{target}\n")
open(f"{w}/original", "w").write(f"{original}\n")
json.dump({"content": docs[-1]["content"]}, open(f"{w}/copy.json", "w"))
json.dump({"content": "Dear neighbour, the quartz violin from the harbour lantern festival 2031 is "
           "returned with thanks. Orbit walnut fjord cobalt meadow tulip granite saffron pylon "
           "ember lagoon; the mosaic of 47 tiles stays in the garden shed until May."},
          open(f"{w}/unique.json", "w"))
PY
TARGET=$(cat "$W/target"); ORIGINAL=$(cat "$W/original")
UNIQUE=$(sed -n 2p "$W/ids")
[ "$UNIQUE" != "$TARGET" ] && [ "$UNIQUE" != "$ORIGINAL" ] || fail "the documents chosen coincide"

step "starting pl-watch"
LINK_FIELD="Duplicate of"
watch_start "$W/index" "$TOKEN_FILE" "$W/watch.ndjson" "$W/watch.log" --link "$LINK_FIELD" --sync-every 2
PORT=$WATCH_PORT
HEALTH=$(curl -sS "http://127.0.0.1:$PORT/health")
[ "$HEALTH" = '{"queue":0,"status":"ok"}' ] || [ "$HEALTH" = '{"status":"ok","queue":0}' ] \
  || fail "GET /health: $HEALTH"
[ "$(curl -sS -o /dev/null -w '%{http_code}' -X POST --data '{"doc_id":"1"}' \
  "http://127.0.0.1:$PORT/webhook")" = 401 ] || fail "a webhook without the secret was not refused"

step "creating the workflow: Document Added, Document Updated -> webhook to pl-watch"
watch_workflow

step "editing document $TARGET into a copy of $ORIGINAL, and $UNIQUE into a unique text (PATCH)"
expect_status 200 PATCH "/api/documents/$TARGET/" "$(cat "$W/copy.json")"
expect_status 200 PATCH "/api/documents/$UNIQUE/" "$(cat "$W/unique.json")"
# Paperless posted the webhooks inside the PATCHes; pl-watch processes them in order.
processed() { watch_processed "$1" "$W/watch.ndjson"; }
for _ in $(seq 300); do
  [ "$(processed "$TARGET")" -ge 1 ] && [ "$(processed "$UNIQUE")" -ge 1 ] && break; sleep 0.1
done
[ "$(processed "$TARGET")" -ge 1 ] && [ "$(processed "$UNIQUE")" -ge 1 ] \
  || fail "pl-watch processed no webhook of Paperless's: $(cat "$W/watch.log")"

step "checking the tag and the note through the API"
expect_status 200 GET "/api/tags/?name__iexact=possible-duplicate"
TAG=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r[0]["id"] if r else "")' "$W/resp")
[ -n "$TAG" ] || fail "no tag possible-duplicate on the server"
has_tag() { expect_status 200 GET "/api/documents/$1/"; python3 -c 'import json,sys; sys.exit(0 if int(sys.argv[2]) in json.load(open(sys.argv[1]))["tags"] else 1)' "$W/resp" "$TAG"; }
has_tag "$TARGET" || fail "document $TARGET is not tagged"
has_tag "$UNIQUE" && fail "document $UNIQUE is tagged, it has no near-copy"
expect_status 200 GET "/api/documents/$TARGET/notes/"
python3 - "$W/resp" "$ORIGINAL" "$PAPERLESS_URL" <<'PY' || fail "no note naming $ORIGINAL on $TARGET: $(cat "$W/resp")"
import json, sys
notes = [n["note"] for n in json.load(open(sys.argv[1]))]
want = f"- #{sys.argv[2]} "
link = f"{sys.argv[3]}/documents/{sys.argv[2]}/details"
ours = [n for n in notes if n.startswith("Possible duplicate (paperless-dedupe)")]
sys.exit(0 if len(ours) == 1 and want in ours[0] and link in ours[0] else 1)
PY
expect_status 200 GET "/api/documents/$UNIQUE/notes/"
[ "$(cat "$W/resp")" = "[]" ] || fail "document $UNIQUE got a note: $(cat "$W/resp")"

step "checking the \"$LINK_FIELD\" link from both documents, and no link twice on another webhook"
# The link's PATCH fires Document Updated itself: pl-watch may see the document again, which
# adds nothing. One more webhook, posted here, must add nothing either.
before=$(processed "$TARGET")
[ "$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H "X-PL-Secret: $SECRET" \
  --data "{\"doc_id\": \"$TARGET\"}" "http://127.0.0.1:$PORT/webhook")" = 202 ] \
  || fail "a webhook with the secret was not queued"
for _ in $(seq 300); do [ "$(processed "$TARGET")" -gt "$before" ] && break; sleep 0.1; done
[ "$(processed "$TARGET")" -gt "$before" ] || fail "the second webhook for $TARGET was not processed"
watch_idle
expect_status 200 GET "/api/custom_fields/?page_size=1000"
FIELD=$(python3 -c 'import json,sys; r=[f for f in json.load(open(sys.argv[1]))["results"] if f["name"]==sys.argv[2] and f["data_type"]=="documentlink"]; print(r[0]["id"] if len(r)==1 else "")' "$W/resp" "$LINK_FIELD")
[ -n "$FIELD" ] || fail "no one document-link field \"$LINK_FIELD\": $(cat "$W/resp")"
link_of() { # DOC: its value of the link field, as JSON ("none" without an entry)
  expect_status 200 GET "/api/documents/$1/"
  python3 -c 'import json,sys; e=[c["value"] for c in json.load(open(sys.argv[1]))["custom_fields"] if c["field"]==int(sys.argv[2])]; print(json.dumps(e[0]) if e else "none")' "$W/resp" "$FIELD"
}
# The copy links to each near-duplicate pl-watch found (ORIGINAL among them), each once; each
# of them shows the link back.
LINKED=$(link_of "$TARGET")
python3 - "$LINKED" "$ORIGINAL" "$TARGET" "$W/watch.ndjson" <<'PY' || fail "document $TARGET links to $LINKED"
import json, sys
linked, original, target = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
dups = [json.loads(l)["duplicates"] for l in open(sys.argv[4]) if json.loads(l)["id"] == target][-1]
sys.exit(0 if original in linked and len(set(linked)) == len(linked) == len(dups) and set(linked) == set(dups) else 1)
PY
for d in $(echo "$LINKED" | tr -d '[],'); do
  python3 -c 'import json,sys; v=json.loads(sys.argv[1]); sys.exit(0 if v != "none" and v.count(int(sys.argv[2])) == 1 else 1)' \
    "$(link_of "$d")" "$TARGET" || fail "document $d shows $(link_of "$d"), not the link to $TARGET once"
done
[ "$(link_of "$UNIQUE")" = none ] || fail "document $UNIQUE got a link: $(link_of "$UNIQUE")"
grep -q "linked through \"$LINK_FIELD\" already" "$W/watch.log" || fail "no rerun said linked already: $(cat "$W/watch.log")"
expect_status 200 GET "/api/documents/$TARGET/notes/"
[ "$(python3 -c 'import json,sys; print(sum(n["note"].startswith("Possible duplicate (paperless-dedupe)") for n in json.load(open(sys.argv[1]))))' "$W/resp")" = 1 ] \
  || fail "document $TARGET has not exactly one note of ours: $(cat "$W/resp")"

step "deleting document $UNIQUE through the API: the sync takes it out of the index"
indexed() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True); print(c.execute("SELECT count(*) FROM docs WHERE id=?", (int(sys.argv[2]),)).fetchone()[0])' "$W/index/index.sqlite" "$1"; }
[ "$(indexed "$UNIQUE")" = 1 ] || fail "document $UNIQUE is not in the index before its deletion"
expect_status 204 DELETE "/api/documents/$UNIQUE/"
for _ in $(seq 200); do grep -q "taken out of the index ($UNIQUE)" "$W/watch.log" && break; sleep 0.1; done
grep -q "sync: 1 document no longer in Paperless taken out of the index ($UNIQUE)" "$W/watch.log" \
  || fail "the sync did not take document $UNIQUE out: $(cat "$W/watch.log")"
[ "$(indexed "$UNIQUE")" = 0 ] || fail "document $UNIQUE is still in the index"
[ "$(indexed "$TARGET")" = 1 ] || fail "document $TARGET was taken out of the index too"

step "stopping pl-watch (SIGTERM) and checking the logs"
watch_stop "$W/watch.log"
grep -E "document $TARGET: [0-9]+ near-duplicates? \(([0-9]+, )*$ORIGINAL[,)].*: tagged possible-duplicate, noted, linked to ([0-9]+, )*$ORIGINAL[,( ]" \
  "$W/watch.log" > /dev/null || fail "pl-watch's log: $(cat "$W/watch.log")"
no_token_in "$W/watch.log" "$W/watch.ndjson" "$LOG"
if grep -qF "$SECRET" "$W/watch.log" "$W/watch.ndjson"; then fail "the secret is in pl-watch's log"; fi
sed 's/^/   /' "$W/watch.log"
echo "real-watch-test: OK (a webhook from Paperless's own workflow tagged, noted and linked document $TARGET to $ORIGINAL)"
