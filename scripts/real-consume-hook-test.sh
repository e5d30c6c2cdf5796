#!/usr/bin/env bash
# End-to-end test of the consume hook (scripts/paperless-consume-hook.sh) against the real
# Paperless-NGX 3.0.5 backend (../shared/paperless/real): the example corpus without one planted
# duplicate is loaded and indexed (pl-fetch, pl-index); then the held-out duplicate and a
# document like no other are loaded as the consumer would (the ORM, as load_docs.py does), and
# the hook is run for each with the environment Paperless gives it. Through the API: the
# duplicate has the tag possible-duplicate and a note naming and linking its original; the other
# has neither. A hook with a wrong server or index still exits 0 and logs why, and the token
# is in no log.
#
# env: PAPERLESS_REAL_STATE, PAPERLESS_REAL_DIR   see scripts/real-paperless-lib.sh
#      BIN                   where the pl-* tools are (default target/release)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/real-paperless-lib.sh"
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
for t in pl-fetch pl-index pl-check; do
  [ -x "$BIN/$t" ] || { echo "no $BIN/$t: build it first (cargo build --release -p pl-cli)" >&2; exit 1; }
done
HOOK="$ROOT/scripts/paperless-consume-hook.sh"

step "choosing a planted duplicate to hold out of the library"
# The held-out document is the last member of the first truth cluster the default pipeline
# groups whole; its original is that cluster's first member.
"$BIN/pl-index" --index "$W/probe-ix" "$ROOT/examples/docs.ndjson" -q -o "$W/groups.ndjson"
python3 - "$ROOT/examples/docs.ndjson" "$W/groups.ndjson" "$W" <<'PY'
import json, sys
docs_path, groups_path, w = sys.argv[1:]
docs = [json.loads(l) for l in open(docs_path, encoding="utf-8") if l.strip()]
group = json.loads(open(groups_path).readline())
held = group["members"][-1]
orig = [m for m in group["members"] if m != held]
with open(f"{w}/library.ndjson", "w") as f:
    for d in docs:
        if d["id"] != held:
            f.write(json.dumps(d) + "\n")
with open(f"{w}/dup.ndjson", "w") as f:
    f.write(json.dumps(next(d for d in docs if d["id"] == held)) + "\n")
with open(f"{w}/unique.ndjson", "w") as f:
    f.write(json.dumps({"title": "A letter like no other", "content":
        "Dear neighbour, the quartz violin from the harbour lantern festival 2031 is "
        "returned with thanks. Orbit walnut fjord cobalt meadow tulip granite saffron "
        "pylon ember lagoon; the mosaic of 47 tiles stays in the garden shed until May."}) + "\n")
# The corpus positions of the originals, to map them to Paperless ids after loading.
pos = [i for i, d in enumerate(d for d in docs if d["id"] != held) if d["id"] in orig]
open(f"{w}/orig-pos", "w").write("\n".join(map(str, pos)) + "\n")
print(f"   held out corpus document {held}, a duplicate of {orig}")
PY

step "setting up Paperless-NGX in $STATE (an empty library) and loading the library"
real_reset
real_load "$W/library.ndjson" "$W/ids"
real_start

step "indexing the library (pl-fetch, pl-index)"
"$BIN/pl-fetch" --token-file "$TOKEN_FILE" --full -o "$W/docs.ndjson" -q
"$BIN/pl-index" --index "$W/index" "$W/docs.ndjson" -q -o "$W/index-groups.ndjson"
ORIGS=$(while read -r p; do sed -n "$((p + 1))p" "$W/ids"; done < "$W/orig-pos" | tr '\n' ' ')
[ -n "$ORIGS" ] || fail "no original found"

step "consuming the held-out duplicate and a unique document (as the consumer stores them)"
real_load "$W/dup.ndjson" "$W/dup-id"
real_load "$W/unique.ndjson" "$W/unique-id"
DUP=$(cat "$W/dup-id"); UNIQUE=$(cat "$W/unique-id")

cat > "$W/hook.env" <<ENV
PL_INDEX=$W/index
PL_BIN=$BIN
PL_TOKEN_FILE=$TOKEN_FILE
PAPERLESS_URL=$PAPERLESS_URL
PL_PUBLIC_URL=https://paperless.example.org
PL_HOOK_LOG=$W/hook.log
PL_HOOK_TIMEOUT=30
ENV
run_hook() { # ID [ENV_FILE]: as Paperless runs its post-consume script
  local rc=0
  env -i PATH="$PATH" HOME="$HOME" PL_HOOK_ENV="${2:-$W/hook.env}" DOCUMENT_ID="$1" \
    DOCUMENT_FILE_NAME="document-$1.pdf" DOCUMENT_SOURCE_PATH="$STATE/media/documents/originals/x.pdf" \
    DOCUMENT_CREATED="2026-01-01" DOCUMENT_ADDED="2026-01-01" DOCUMENT_MODIFIED="2026-01-01" \
    DOCUMENT_TAGS="" DOCUMENT_CORRESPONDENT="" TASK_ID="test" \
    "$HOOK" 2>> "$W/hook.stderr" || rc=$?
  [ "$rc" = 0 ] || fail "the hook exited $rc for document $1"
  [ -z "${HOOK_DEBUG:-}" ] || cat "$W/hook.log" >&2
}
start=$(date +%s.%N)
run_hook "$DUP"
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "   hook on the duplicate: $took s"
run_hook "$UNIQUE"

step "checking the tag and the note through the API"
expect_status 200 GET "/api/tags/?name__iexact=possible-duplicate"
TAG=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r[0]["id"] if r else "")' "$W/resp")
[ -n "$TAG" ] || fail "no tag possible-duplicate was created"
expect_status 200 GET "/api/documents/$DUP/"
python3 - "$W/resp" "$TAG" <<'PY' || fail "document $DUP is not tagged possible-duplicate"
import json, sys
d = json.load(open(sys.argv[1])); sys.exit(0 if int(sys.argv[2]) in d["tags"] else 1)
PY
expect_status 200 GET "/api/documents/$DUP/notes/"
python3 - "$W/resp" $ORIGS <<'PY' || fail "document $DUP has no note naming its original(s) $ORIGS"
import json, sys
notes = json.load(open(sys.argv[1]))
notes = notes.get("results", notes) if isinstance(notes, dict) else notes
text = " ".join(n.get("note", "") for n in notes)
origs = sys.argv[2:]
ok = len(notes) == 1 and all(f"#{o} " in text and f"https://paperless.example.org/documents/{o}/details" in text for o in origs[:1])
print("   note: " + text.replace("\n", " | ")[:300])
sys.exit(0 if ok else 1)
PY
expect_status 200 GET "/api/documents/$UNIQUE/"
python3 - "$W/resp" "$TAG" <<'PY' || fail "the unique document $UNIQUE was tagged"
import json, sys
d = json.load(open(sys.argv[1])); sys.exit(1 if int(sys.argv[2]) in d["tags"] else 0)
PY
expect_status 200 GET "/api/documents/$UNIQUE/notes/"
python3 -c 'import json,sys; n=json.load(open(sys.argv[1])); n=n.get("results",n) if isinstance(n,dict) else n; sys.exit(1 if n else 0)' "$W/resp" \
  || fail "the unique document $UNIQUE got a note"

step "the index took both documents in (pl-check --add)"
"$BIN/pl-index" --index "$W/index" --partial -q -o "$W/after.ndjson" < /dev/null
grep -q "\"members\":\[[^]]*\b$DUP\b" "$W/after.ndjson" || fail "document $DUP is in no group of the index"

step "a broken setup never fails the consumption"
sed "s|^PAPERLESS_URL=.*|PAPERLESS_URL=http://127.0.0.1:9|" "$W/hook.env" > "$W/bad-url.env"
run_hook "$DUP" "$W/bad-url.env"
grep -q "pl-check failed" "$W/hook.log" || fail "a wrong server was not logged"
sed "s|^PL_INDEX=.*|PL_INDEX=$W/no-index|" "$W/hook.env" > "$W/bad-index.env"
run_hook "$DUP" "$W/bad-index.env"
grep -q "no index here" "$W/hook.log" || fail "a missing index was not logged"
# A server that takes the connection and never answers: the hook's limit (whole seconds,
# at least 1) ends the check.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(120)' > "$W/silent.port" &
SILENT=$!
for _ in $(seq 100); do [ -s "$W/silent.port" ] && break; sleep 0.1; done
printf 'PL_INDEX=%s\nPL_BIN=%s\nPL_TOKEN_FILE=%s\nPAPERLESS_URL=http://127.0.0.1:%s\nPL_HOOK_LOG=%s\nPL_HOOK_TIMEOUT=1\n' \
  "$W/index" "$BIN" "$TOKEN_FILE" "$(cat "$W/silent.port")" "$W/hook.log" > "$W/slow.env"
run_hook "$DUP" "$W/slow.env"
kill "$SILENT" 2>/dev/null || true
grep -q "took more than" "$W/hook.log" || fail "a timeout was not logged"
run_hook "" && grep -q "no DOCUMENT_ID" "$W/hook.log" || fail "a missing DOCUMENT_ID was not logged"
lines=$(wc -l < "$W/hook.log")
run_hook $'7\nforged line'
[ "$(wc -l < "$W/hook.log")" = $((lines + 1)) ] && grep -q "DOCUMENT_ID is not a document id" "$W/hook.log" \
  || fail "a DOCUMENT_ID with a newline was not refused on one line"

step "a hook outlasted by another writer checks, tags and leaves the document queued"
flock -o "$W/index/index.lock" sleep 30 &  # -o: flock holds the lock, not its child
HOLDER=$!
sleep 0.5
sed "s|^PL_HOOK_TIMEOUT=.*|PL_HOOK_TIMEOUT=4|" "$W/hook.env" > "$W/busy.env"
run_hook "$DUP" "$W/busy.env"
kill "$HOLDER" 2>/dev/null || true
wait "$HOLDER" 2>/dev/null || true
tail -n 1 "$W/hook.log" | grep -q "tagged possible-duplicate.*queued in the index folder" \
  || fail "a hook waiting for the index's lock did not tag and queue its document"
ls "$W/index/queue/" | grep -q "^0*$DUP\." || fail "document $DUP is not queued"
"$BIN/pl-index" --index "$W/index" --partial -q -o /dev/null < /dev/null
[ -z "$(ls "$W/index/queue/")" ] || fail "the next pl-index left the queue: $(ls "$W/index/queue/")"
no_token_in "$W/hook.log" "$W/hook.stderr" "$LOG"
sed 's/^/   log: /' "$W/hook.log"

echo "real-consume-hook-test: all checks passed (hook on a duplicate: $took s)"
