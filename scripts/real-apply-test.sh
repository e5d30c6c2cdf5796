#!/usr/bin/env bash
# End-to-end test of the review write-back against the real Paperless-NGX 3.0.5 backend
# (../shared/paperless/real): load the example corpus, pl-fetch it, run the pipeline, build the
# report, write decisions as the page exports them, then pl-apply: the plan changes nothing, a
# document edited after scoring is refused, --yes --note --link tags the non-primaries, notes
# their primary on them and links them to it through a document-link custom field (seen from
# both documents; another custom field set beforehand kept), never touching a primary but for
# the link Paperless mirrors on it, a re-run changes nothing, --delete moves them to the trash,
# --undo restores them, takes the tags, notes and links off (every custom field list exactly as
# before) and deletes the tag it created, and acts on what the server shows for outcomes the
# journal never saw (a trash journaled "unknown", a note posted twice). Every step is checked
# through the REST API. Exits non-zero on any mismatch.
#
# env: PAPERLESS_REAL_STATE, PAPERLESS_REAL_DIR   see scripts/real-paperless-lib.sh
#      DOCS   corpus to load (default examples/docs.ndjson)
#      BIN    where the pl-* tools are (default target/release)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/real-paperless-lib.sh"
DOCS=$(readlink -m "${DOCS:-$ROOT/examples/docs.ndjson}")
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
for t in pl-fetch pl-normalize pl-shingle pl-minhash pl-lsh pl-score pl-cluster pl-report pl-apply; do
  [ -x "$BIN/$t" ] || fail "no $BIN/$t: build it first (cargo build --release -p pl-cli)"
done
export PATH="$BIN:$PATH"

step "an empty Paperless-NGX in $STATE, loading $(grep -c . "$DOCS") documents"
real_reset
real_load "$DOCS" "$W/ids"
real_start

step "fetch and the pipeline"
pl-fetch --token-file "$TOKEN_FILE" -q -o "$W/docs.ndjson"
pl-normalize -q "$W/docs.ndjson" -o "$W/norm.ndjson"
pl-shingle -q "$W/norm.ndjson" | pl-minhash -q > "$W/sigs.bin"
pl-lsh -q "$W/sigs.bin" | pl-score -q --sigs "$W/sigs.bin" --norm "$W/norm.ndjson" > "$W/scores.ndjson"
pl-cluster -q "$W/scores.ndjson" --docs "$W/norm.ndjson" -o "$W/groups.ndjson"
pl-report -q "$W/groups.ndjson" --docs "$W/docs.ndjson" --scores "$W/scores.ndjson" -o "$W/report.html"
grep -q "$PAPERLESS_URL/documents/" "$W/report.html" || fail "the report has no links into Paperless"
echo "   $(wc -l < "$W/groups.ndjson") groups"

# Decisions as the page exports them: the first two groups of 3+ members are duplicates (the
# second keeping another member than pl-cluster's primary), the next one is not.
python3 - "$W/groups.ndjson" "$W/docs.ndjson" "$W/decisions.ndjson" "$W/expect.json" <<'PY'
import json, sys
groups = [json.loads(l) for l in open(sys.argv[1])]
docs = {d["id"]: d for d in map(json.loads, open(sys.argv[2]))}
big = [g for g in groups if len(g["members"]) >= 3][:3]
assert len(big) == 3, "the corpus needs three groups of 3 or more"
out, expect = [], {"primaries": [], "targets": [], "untouched": []}
for i, g in enumerate(big):
    decision = "not-duplicate" if i == 2 else "duplicate"
    primary = g["primary"] if i == 0 else [m for m in g["members"] if m != g["primary"]][0]
    out.append({"group": g["group"], "decision": decision, "primary": primary, "members": g["members"],
                "modified": {str(m): docs[m]["modified"] for m in g["members"]},
                "confidence": g["confidence"], "decided_at": "2026-11-23T04:00:00.000Z"})
    if decision == "duplicate":
        expect["primaries"].append(primary)
        expect["targets"] += [m for m in g["members"] if m != primary]
    else:
        expect["untouched"] += g["members"]
open(sys.argv[3], "w").write("".join(json.dumps(o) + "\n" for o in out))
json.dump(expect, open(sys.argv[4], "w"))
PY
j() { python3 -c "import json,sys; print(' '.join(map(str, json.load(open('$W/expect.json'))['$1'])))"; }
PRIMARIES=$(j primaries); TARGETS=$(j targets); UNTOUCHED=$(j untouched)
EDITED=${TARGETS%% *}                 # edited by hand after scoring: must be refused
TAGGED=${TARGETS#* }                  # the others
echo "   primaries: $PRIMARIES; to tag: $TARGETS; edited after scoring: $EDITED"

# state ID → "live TAG_IDS..." or "trash" or "gone", from the API
state() {
  expect_status 200 GET "/api/documents/?id__in=$1&fields=id,tags"
  cp "$W/resp" "$W/live.json"
  expect_status 200 GET "/api/trash/?page_size=100000"
  python3 - "$W/live.json" "$W/resp" "$1" <<'PY'
import json, sys
live = json.load(open(sys.argv[1]))["results"]
trash = [d["id"] for d in json.load(open(sys.argv[2]))["results"]]
if live:
    print("live", *sorted(live[0]["tags"]))
else:
    print("trash" if int(sys.argv[3]) in trash else "gone")
PY
}
has_tag() { state "$1" | grep -qE "^live( [0-9]+)* $2( |$)"; }
tag_id() {
  expect_status 200 GET "/api/tags/?page_size=100000"
  python3 -c "import json; print(next((str(t['id']) for t in json.load(open('$W/resp'))['results'] if t['name'] == '$1'), ''))"
}
apply() { # NAME ARGS...: stdout in $W/NAME.out, stderr in $W/NAME.err
  local name=$1; shift
  local rc=0   # 3: done, some documents refused (the plan says which)
  pl-apply --token-file "$TOKEN_FILE" --journal "$W/journal.ndjson" "$@" > "$W/$name.out" 2> "$W/$name.err" || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 3 ] || { cat "$W/$name.err" >&2; fail "pl-apply $name (exit $rc)"; }
  cat "$W/$name.err"
}
status_of() { # NAME ID → the plan status of ID
  python3 -c "import json; print(next(r['status'] for r in map(json.loads, open('$W/$1.out')) if r['id'] == $2))"
}

# Another custom field set on a copy and on a primary before the run (and scored after it):
# the link must keep it, and the undo leave every custom field list as it was.
LINK="Duplicate of"
expect_status 201 POST /api/custom_fields/ '{"name": "Account", "data_type": "string"}'
ACCOUNT=$(python3 -c "import json; print(json.load(open('$W/resp'))['id'])")
FIRST_PRIMARY=${PRIMARIES%% *}
for id in ${TAGGED%% *} $FIRST_PRIMARY; do
  expect_status 200 PATCH "/api/documents/$id/" "{\"custom_fields\": [{\"field\": $ACCOUNT, \"value\": \"Kto $id\"}]}"
  python3 - "$W/decisions.ndjson" "$id" "$(python3 -c "import json; print(json.load(open('$W/resp'))['modified'])")" <<'PY'
import json, sys
path, id_, modified = sys.argv[1], sys.argv[2], sys.argv[3]
out = []
for d in map(json.loads, open(path)):
    if id_ in d["modified"]:
        d["modified"][id_] = modified
    out.append(json.dumps(d) + "\n")
open(path, "w").write("".join(out))
PY
done
fields_of() { # ID → its custom_fields, as JSON
  expect_status 200 GET "/api/documents/$1/"
  python3 -c "import json; print(json.dumps(json.load(open('$W/resp'))['custom_fields'], sort_keys=True))"
}
link_field() {
  expect_status 200 GET "/api/custom_fields/?page_size=100000"
  python3 -c "import json; print(next((str(f['id']) for f in json.load(open('$W/resp'))['results'] if f['name'] == '$LINK' and f['data_type'] == 'documentlink'), ''))"
}
links() { # ID FIELD → the ids its entry of FIELD links to, sorted, space-separated
  fields_of "$1" > /dev/null
  python3 -c "import json; print(' '.join(map(str, sorted(next((e['value'] or [] for e in json.load(open('$W/resp'))['custom_fields'] if e['field'] == $2), [])))))"
}
for id in $PRIMARIES $TARGETS $UNTOUCHED; do fields_of "$id"; done > "$W/fields-before"

step "the plan changes nothing"
apply plan "$W/decisions.ndjson" --note --link "$LINK"
[ -z "$(link_field)" ] || fail "the plan created the link field"
[ -z "$(tag_id duplicate)" ] || fail "the plan created the tag"
[ ! -s "$W/journal.ndjson" ] || fail "the plan wrote the journal"
for id in $TARGETS; do [ "$(status_of plan "$id")" = planned ] || fail "#$id not planned"; done

step "a document edited after scoring is refused; --yes tags, notes and links the others"
expect_status 200 PATCH "/api/documents/$EDITED/" '{"title": "edited after scoring"}'
apply tag "$W/decisions.ndjson" --note --link "$LINK" --yes
T=$(tag_id duplicate); [ -n "$T" ] || fail "no tag 'duplicate' created"
[ "$(status_of tag "$EDITED")" = refused ] || fail "#$EDITED was not refused"
has_tag "$EDITED" "$T" && fail "#$EDITED was tagged: $(state "$EDITED")"
for id in $TAGGED; do
  [ "$(status_of tag "$id")" = done ] || fail "#$id not done"
  has_tag "$id" "$T" || fail "#$id has no tag $T: $(state "$id")"
done
for id in $PRIMARIES $UNTOUCHED; do
  has_tag "$id" "$T" && fail "#$id (a primary or not a duplicate) was tagged"
done
grep -q '"result":"ok"' "$W/journal.ndjson" || fail "no ok record in the journal"
notes() { expect_status 200 GET "/api/documents/$1/notes/"; python3 -c "
import json; print(sum('Duplicate of document #' in n['note'] for n in json.load(open('$W/resp'))))"; }
for id in $TAGGED; do [ "$(notes "$id")" = 1 ] || fail "#$id: $(notes "$id") notes, expected 1"; done
for id in $PRIMARIES $EDITED; do [ "$(notes "$id")" = 0 ] || fail "#$id got a note"; done
F=$(link_field); [ -n "$F" ] || fail "no document-link field '$LINK' created"
primary_of() { python3 -c "
import json
for d in map(json.loads, open('$W/decisions.ndjson')):
    if d['decision'] == 'duplicate' and $1 in d['members']: print(d['primary'])"; }
for id in $TAGGED; do
  P=$(primary_of "$id")
  [ "$(links "$id" "$F")" = "$P" ] || fail "#$id links to '$(links "$id" "$F")', expected its primary #$P"
  links "$P" "$F" | grep -qw "$id" || fail "the primary #$P does not show the link from #$id: $(fields_of "$P")"
done
[ -z "$(links "$EDITED" "$F")" ] || fail "the refused #$EDITED was linked"
fields_of "${TAGGED%% *}" | grep -q "Kto ${TAGGED%% *}" || fail "the link lost #${TAGGED%% *}'s other custom field"
fields_of "$FIRST_PRIMARY" | grep -q "Kto $FIRST_PRIMARY" || fail "the mirrored link lost #$FIRST_PRIMARY's other custom field"

step "a re-run changes nothing"
SEEN=$(wc -l < "$LOG")
apply rerun "$W/decisions.ndjson" --note --link "$LINK" --yes
tail -n +"$((SEEN + 1))" "$LOG" | grep -qE '(POST|PATCH) /api' && fail "the re-run wrote to the server"
for id in $TAGGED; do
  P=$(primary_of "$id")
  [ "$(links "$id" "$F")" = "$P" ] || fail "#$id links to '$(links "$id" "$F")' after the re-run"
  [ "$(links "$P" "$F" | tr ' ' '\n' | grep -cx "$id")" = 1 ] || fail "#$P shows #$id twice after the re-run"
done
for id in $TAGGED; do [ "$(status_of rerun "$id")" = skipped ] || fail "#$id not skipped on re-run"; done

step "--delete moves them to the trash (our own tagging does not count as an edit)"
apply trash "$W/decisions.ndjson" --delete --yes -v
grep -q 'deleted with documents/delete' "$W/trash.err" || fail "not the 3.x delete endpoint"
for id in $TAGGED; do [ "$(state "$id")" = trash ] || fail "#$id not in the trash: $(state "$id")"; done
for id in $PRIMARIES $UNTOUCHED $EDITED; do state "$id" | grep -q '^live' || fail "#$id is gone"; done

step "--undo restores them and takes the tags off"
apply undo-plan --undo "$W/journal.ndjson"
for id in $TAGGED; do [ "$(state "$id")" = trash ] || fail "the undo plan changed #$id"; done
apply undo --undo "$W/journal.ndjson" --yes
for id in $PRIMARIES $TARGETS $UNTOUCHED; do fields_of "$id"; done > "$W/fields-after"
diff "$W/fields-before" "$W/fields-after" >&2 || fail "the undo left custom fields other than they were (diff above)"
[ -n "$(link_field)" ] || fail "the undo deleted the link field (it is left, documented)"
for id in $TAGGED; do
  state "$id" | grep -q '^live' || fail "#$id after undo: $(state "$id") (expected live)"
  has_tag "$id" "$T" && fail "#$id still has tag $T after undo"
  [ "$(notes "$id")" = 0 ] || fail "#$id still has its note after undo"
done
# The tag pl-apply created is gone too, now that no document carries it.
[ -z "$(tag_id duplicate)" ] || fail "the tag 'duplicate' pl-apply created is still there after undo"
grep -q '"action":"delete-tag".*"status":"done"' "$W/undo.out" || fail "undo did not report the tag deleted"
apply undo-again --undo "$W/journal.ndjson" --yes
[ ! -s "$W/undo-again.out" ] || fail "a second undo found work: $(cat "$W/undo-again.out")"

# Timeouts cannot be had from the real server on demand, so the journal of a run whose answers
# were lost is written here, and the changes it made, landed without an answer, are made through
# the API: a trash journaled "unknown", a note journaled only "started" and posted twice (a
# retried copy). The undo must act on what the server shows: restore, delete both notes.
step "--undo acts on what the server shows for outcomes never seen"
NOTE="Duplicate of document #0: $PAPERLESS_URL (a note whose answer was lost)"
FIRST=${TAGGED%% *}
for id in $TAGGED; do
  printf '{"at":"2026-11-23T04:00:00Z","op":"trash","id":%s,"result":"unknown","error":"timed out"}\n' "$id" >> "$W/journal.ndjson"
done
printf '{"at":"2026-11-23T04:00:00Z","op":"note","id":%s,"note":"%s","result":"started"}\n' "$FIRST" "$NOTE" >> "$W/journal.ndjson"
for i in 1 2; do expect_status 200 POST "/api/documents/$FIRST/notes/" "{\"note\": \"$NOTE\"}"; done
expect_status 200 POST "/api/documents/delete/" "{\"documents\": [${TAGGED// /,}]}"
for id in $TAGGED; do [ "$(state "$id")" = trash ] || fail "#$id not in the trash before the undo"; done
apply undo-unknown --undo "$W/journal.ndjson" --yes --settle 0.1
for id in $TAGGED; do
  state "$id" | grep -q '^live' || fail "#$id after the undo of an unknown trash: $(state "$id")"
done
expect_status 200 GET "/api/documents/$FIRST/notes/"
grep -q 'a note whose answer was lost' "$W/resp" && fail "#$FIRST keeps a note of ours after the undo"
grep -q 'restored '"$(echo $TAGGED | wc -w)"',' "$W/undo-unknown.err" || fail "undo did not say it restored them: $(cat "$W/undo-unknown.err")"

no_token_in "$W"/*.ndjson "$W"/*.out "$W"/*.err "$W/report.html"
echo "real-apply-test: all checks passed (server $(grep -o '"release":"[^"]*"' "$W/journal.ndjson" | head -1))"
