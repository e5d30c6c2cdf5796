#!/usr/bin/env bash
# Owners against the real Paperless-NGX 3.0.5 backend (../shared/paperless/real), two users
# (issue 58, item 2): load the example corpus (owned by admin), group it once, give a second
# user, bob, one member of one group and the whole of another, then: pl-fetch records each
# document's owner and permission lists, as the API gives them with full_perms=true, for
# admin's token and bob's (and an incremental sync after a bulk edit of permissions, which
# leaves `modified`, equals a full one); the pipeline never groups documents of two owners, and
# --across-owners does (pl-report says so); pl-apply with bob's token on a group across owners
# writes nothing to admin's documents (one bob may see but not change is refused as such, the
# ones bob may not see as not visible). Then pl-watch with bob's token and bob's index, fired
# by a workflow's webhook on Document Updated (the backend has no consumer: documents are
# PATCHed, as in real-watch-test.sh): it reports no near-copy of admin's for bob's document
# and tags nothing, and for admin's document bob may see but not change it writes nothing and
# logs that; with --across-owners it tags and notes bob's document naming admin's, and still
# writes nothing to admin's. Every step checked through the REST API. Exits non-zero on any mismatch.
#
# env: PAPERLESS_REAL_STATE, PAPERLESS_REAL_DIR   see scripts/real-paperless-lib.sh
#      DOCS   corpus to load (default examples/docs.ndjson)
#      BIN    where the pl-* tools are (default target/release)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/real-paperless-lib.sh"
DOCS=$(readlink -m "${DOCS:-$ROOT/examples/docs.ndjson}")
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
for t in pl-fetch pl-normalize pl-shingle pl-minhash pl-lsh pl-score pl-cluster pl-report pl-apply pl-index pl-watch; do
  [ -x "$BIN/$t" ] || fail "no $BIN/$t: build it first (cargo build --release -p pl-cli)"
done
export PATH="$BIN:$PATH"

step "an empty Paperless-NGX in $STATE, $(grep -c . "$DOCS") documents of admin's, and a user bob"
real_reset
real_load "$DOCS" "$W/ids"
(. "$STATE/env.sh" && cd "$STATE/src/src" && "$STATE/venv/bin/python" manage.py shell -c "
from django.contrib.auth.models import User, Permission
from rest_framework.authtoken.models import Token
u = User.objects.create_user('bob', password='bob-password-not-used')
u.user_permissions.set(Permission.objects.filter(codename__in=[
    'view_document', 'change_document', 'delete_document', 'view_tag', 'add_tag', 'change_tag',
    'view_correspondent', 'view_documenttype', 'view_note', 'add_note', 'delete_note']))
open('$W/bob-token', 'w').write(Token.objects.create(user=u).key)
print('BOB', u.id)") | sed -n 's/^BOB //p' > "$W/bob-id"
BOB=$(cat "$W/bob-id"); [ -n "$BOB" ] || fail "no user bob"
real_start

pipeline() { # DOCS OUT_DIR [pl-cluster flags]
  local d=$2; mkdir -p "$d"
  pl-normalize -q "$1" -o "$d/norm.ndjson"
  pl-shingle -q "$d/norm.ndjson" | pl-minhash -q > "$d/sigs.bin"
  pl-lsh -q "$d/sigs.bin" | pl-score -q --sigs "$d/sigs.bin" --norm "$d/norm.ndjson" > "$d/scores.ndjson"
  pl-cluster "${@:3}" "$d/scores.ndjson" --docs "$d/norm.ndjson" -o "$d/groups.ndjson" 2> "$d/cluster.err"
}

step "groups of one owner: bob gets one member of group A and all of group B"
pl-fetch --token-file "$TOKEN_FILE" -q -o "$W/docs.ndjson"
pipeline "$W/docs.ndjson" "$W/before"
python3 - "$W/before/groups.ndjson" "$W/docs.ndjson" > "$W/ab" <<'PY'
import json, sys
docs = {d["id"]: d for d in map(json.loads, open(sys.argv[2]))}
assert all(d["owner"] == docs[min(docs)]["owner"] is not None for d in docs.values()), "admin owns all"
assert all(d["user_can_change"] is True for d in docs.values())
big = [g["members"] for g in map(json.loads, open(sys.argv[1])) if len(g["members"]) >= 3][:2]
assert len(big) == 2, "the corpus needs two groups of 3 or more"
print(" ".join(map(str, big[0])))
print(" ".join(map(str, big[1])))
PY
A=$(sed -n 1p "$W/ab"); B=$(sed -n 2p "$W/ab")
A_BOB=${A##* }                          # the last member of A is bob's
A_ADMIN=${A% *}
A_SEEN=${A_ADMIN%% *}                   # bob may see (not change) this one of admin's
echo "   A: $A (bob: $A_BOB; bob may view $A_SEEN); B: $B (all bob's)"
for id in $A_BOB $B; do
  expect_status 200 PATCH "/api/documents/$id/" "{\"owner\": $BOB}"
done
# A bulk edit of permissions leaves `modified`: the incremental sync must still see it.
expect_status 200 POST /api/documents/bulk_edit/ "{\"documents\": [$A_SEEN], \"method\": \"set_permissions\",
  \"parameters\": {\"set_permissions\": {\"view\": {\"users\": [$BOB], \"groups\": []},
  \"change\": {\"users\": [], \"groups\": []}}, \"merge\": true}}"

step "pl-fetch records the owners; incremental equals full"
pl-fetch --token-file "$TOKEN_FILE" -q -o "$W/docs.ndjson"
pl-fetch --token-file "$TOKEN_FILE" -q --full -o "$W/full.ndjson"
cmp -s "$W/docs.ndjson" "$W/full.ndjson" || fail "incremental output differs from a full sync"
python3 - "$W/docs.ndjson" "$BOB" "$A_BOB $B" <<'PY' || fail "owners not as set"
import json, sys
docs = {d["id"]: d for d in map(json.loads, open(sys.argv[1]))}
bob, bobs = int(sys.argv[2]), set(map(int, sys.argv[3].split()))
wrong = [i for i, d in docs.items() if (d["owner"] == bob) != (i in bobs)]
assert not wrong, f"owner wrong for {wrong[:5]}"
PY

step "pl-fetch records the permission lists as the API gives them (full_perms=true), for admin and bob"
same_perms() { # DOCS TOKEN_FILE: the records' lists are the API's, sorted
  TOKEN_FILE=$2 expect_status 200 GET "/api/documents/?full_perms=true&fields=id,permissions&page_size=100000"
  python3 - "$W/resp" "$1" "$A_SEEN" "$BOB" <<'PY'
import json, sys
api = {d["id"]: d["permissions"] for d in json.load(open(sys.argv[1]))["results"]}
docs = {d["id"]: d for d in map(json.loads, open(sys.argv[2]))}
seen, bob = int(sys.argv[3]), int(sys.argv[4])
assert set(api) == set(docs), f"{len(api)} documents listed, {len(docs)} fetched"
norm = lambda p: {a: {t: sorted(set(p[a][t])) for t in ("users", "groups")} for a in ("view", "change")}
wrong = [i for i in docs if docs[i].get("permissions") != norm(api[i])]
assert not wrong, f"lists differ from the API's for {wrong[:5]}: {[docs[i].get('permissions') for i in wrong[:2]]}"
assert docs[seen]["permissions"]["view"]["users"] == [bob], docs[seen]["permissions"]
assert docs[seen]["permissions"]["change"]["users"] == [], docs[seen]["permissions"]
assert all(isinstance(d["user_can_change"], bool) for d in docs.values()), "user_can_change lost"
print(f"   {len(docs)} documents, the lists as the API gives them; #{seen}: {docs[seen]['permissions']}")
PY
}
same_perms "$W/docs.ndjson" "$TOKEN_FILE" || fail "admin's records' permission lists"
pl-fetch --token-file "$W/bob-token" -q -o "$W/bob-docs.ndjson"
same_perms "$W/bob-docs.ndjson" "$W/bob-token" || fail "bob's records' permission lists"

step "no group across owners by default; --across-owners joins them and pl-report says so"
pipeline "$W/docs.ndjson" "$W/own"
pipeline "$W/docs.ndjson" "$W/across" --across-owners
grep -q "pairs across owners are no link" "$W/own/cluster.err" || fail "pl-cluster did not say it left pairs out"
python3 - "$W/own/groups.ndjson" "$W/across/groups.ndjson" "$W/docs.ndjson" "$A" "$B" <<'PY' || fail "groups wrong"
import json, sys
docs = {d["id"]: d for d in map(json.loads, open(sys.argv[3]))}
own = [g["members"] for g in map(json.loads, open(sys.argv[1]))]
across = [g["members"] for g in map(json.loads, open(sys.argv[2]))]
A, B = (list(map(int, s.split())) for s in sys.argv[4:6])
spans = [m for m in own if len({docs[i]["owner"] for i in m}) > 1]
assert not spans, f"groups across owners by default: {spans}"
assert A[:-1] in own and B in own, f"A less bob's and B expected: {own}"
assert A in across and B in across, f"A and B expected with --across-owners: {across}"
print(f"   {len(own)} groups by default, {len(across)} with --across-owners")
PY
pl-report "$W/across/groups.ndjson" --docs "$W/docs.ndjson" -o "$W/report.html" 2> "$W/report.err"
grep -q "groups join documents of different owners (pl-cluster --across-owners was given)" "$W/report.err" \
  || fail "pl-report did not say the groups span owners: $(cat "$W/report.err")"
grep -q '"across_owners":1' "$W/report.html" || fail "the page does not say a group spans owners"

step "pl-apply with bob's token on group A (across owners): nothing written to admin's documents"
# Group A as pl-cluster --across-owners wrote it, bob's document its primary.
python3 - "$W/across/groups.ndjson" "$A" "$A_BOB" > "$W/groups-a.ndjson" <<'PY'
import json, sys
A, keep = list(map(int, sys.argv[2].split())), int(sys.argv[3])
g = next(g for g in map(json.loads, open(sys.argv[1])) if g["members"] == A)
g["primary"] = keep
print(json.dumps(g))
PY
tags_of_a() {
  expect_status 200 GET "/api/documents/?id__in=$(echo "$A" | tr ' ' ,)&fields=id,tags,modified&page_size=100"
  python3 -c "import json; print(json.dumps(sorted((d['id'], sorted(d['tags']), d['modified']) for d in json.load(open('$W/resp'))['results'])))"
}
tags_of_a > "$W/a-before"
rc=0
pl-apply --token-file "$W/bob-token" --journal "$W/journal.ndjson" "$W/groups-a.ndjson" --docs "$W/docs.ndjson" \
  --min-confidence 0 --yes > "$W/apply.out" 2> "$W/apply.err" || rc=$?
cat "$W/apply.err"
[ "$rc" = 3 ] || fail "pl-apply as bob: exit $rc, expected 3 (documents refused)"
grep -q "refused #$A_SEEN (group [0-9]*): the token's user may not change it (Paperless: user_can_change false)" \
  "$W/apply.err" || fail "#$A_SEEN not refused as one bob may not change"
grep -q "documents the token's user may not change it" "$W/apply.err" || fail "the summary does not count them"
no_token_in "$W/apply.out" "$W/apply.err" "$W/journal.ndjson"
tags_of_a > "$W/a-after"
cmp -s "$W/a-before" "$W/a-after" || fail "group A changed in bob's run: $(cat "$W/a-before") -> $(cat "$W/a-after")"
echo "   bob's run: $(tail -n 1 "$W/apply.err")"
step "pl-watch with bob's token and bob's index (bob may also see, not change, the rest of A)"
expect_status 200 POST /api/documents/bulk_edit/ "{\"documents\": [$(echo "$A_ADMIN" | tr ' ' ,)],
  \"method\": \"set_permissions\", \"parameters\": {\"set_permissions\": {\"view\": {\"users\": [$BOB],
  \"groups\": []}, \"change\": {\"users\": [], \"groups\": []}}, \"merge\": true}}"
pl-fetch --token-file "$W/bob-token" -q -o "$W/bob-docs.ndjson"
[ "$(grep -c . "$W/bob-docs.ndjson")" = "$(echo $A $B | wc -w)" ] || fail "bob sees $(grep -c . "$W/bob-docs.ndjson") documents"
pl-index --index "$W/bob-index" "$W/bob-docs.ndjson" -q -o /dev/null
watch_start "$W/bob-index" "$W/bob-token" "$W/watch.ndjson" "$W/watch.log"
watch_workflow
# An archive serial number set fires Document Updated (a title would change the notes' text).
touch_doc() { expect_status 200 PATCH "/api/documents/$1/" "{\"archive_serial_number\": $2}"; }
written() { # IDS: "ID tags notes" for each, through the API (with admin's token)
  for id in $1; do
    expect_status 200 GET "/api/documents/$id/"; local tags; tags=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tags"]))' "$W/resp")
    expect_status 200 GET "/api/documents/$id/notes/"; echo "$id $tags $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$W/resp")"
  done
}
outcome() { # OUT ID: the last record's duplicates and tagged
  python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["id"]==int(sys.argv[2])][-1]; print(" ".join(map(str, r["duplicates"])), r["tagged"])' "$1" "$2"
}
written "$A $B" > "$W/written-before"
touch_doc "$A_BOB" 9001; watch_wait "$A_BOB" 1 "$W/watch.ndjson"; watch_idle
touch_doc "$A_SEEN" 9002; watch_wait "$A_SEEN" 1 "$W/watch.ndjson"
watch_idle
echo "   #$A_BOB: $(outcome "$W/watch.ndjson" "$A_BOB"); #$A_SEEN: $(outcome "$W/watch.ndjson" "$A_SEEN")"
[ "$(outcome "$W/watch.ndjson" "$A_BOB")" = " False" ] || fail "bob's #$A_BOB reported or tagged with near-copies of admin's: $(outcome "$W/watch.ndjson" "$A_BOB")"
grep -q "document $A_BOB: [0-9]* near-duplicates\? of other owners not reported" "$W/watch.log" \
  || fail "pl-watch did not say it left admin's near-copies of #$A_BOB out: $(cat "$W/watch.log")"
python3 - "$(outcome "$W/watch.ndjson" "$A_SEEN")" "$A_ADMIN" <<'PY' || fail "admin's #$A_SEEN: $(outcome "$W/watch.ndjson" "$A_SEEN")"
import sys
*dups, tagged = sys.argv[1].split()
assert dups and set(dups) <= set(sys.argv[2].split()) and tagged == "False"
PY
grep -q "document $A_SEEN: [0-9]* near-duplicates\? ([0-9, ]*): not tagged or noted: the token's user may not change it" "$W/watch.log" \
  || fail "pl-watch did not say it skipped #$A_SEEN: $(cat "$W/watch.log")"
written "$A $B" > "$W/written-after"
cmp -s "$W/written-before" "$W/written-after" || fail "tags or notes changed: $(diff "$W/written-before" "$W/written-after")"
watch_stop "$W/watch.log"

step "pl-watch --across-owners with bob's token: bob's document tagged and noted, naming admin's; admin's still not written"
watch_start "$W/bob-index" "$W/bob-token" "$W/watch2.ndjson" "$W/watch2.log" --across-owners
touch_doc "$A_BOB" 9003; watch_wait "$A_BOB" 1 "$W/watch2.ndjson"; watch_idle
touch_doc "$A_SEEN" 9004; watch_wait "$A_SEEN" 1 "$W/watch2.ndjson"
watch_idle
echo "   #$A_BOB: $(outcome "$W/watch2.ndjson" "$A_BOB"); #$A_SEEN: $(outcome "$W/watch2.ndjson" "$A_SEEN")"
python3 - "$(outcome "$W/watch2.ndjson" "$A_BOB")" "$(outcome "$W/watch2.ndjson" "$A_SEEN")" "$A_ADMIN" "$A_BOB" <<'PY' \
  || fail "with --across-owners: #$A_BOB $(outcome "$W/watch2.ndjson" "$A_BOB"), #$A_SEEN $(outcome "$W/watch2.ndjson" "$A_SEEN")"
import sys
*bobs, bob_tagged = sys.argv[1].split()
*admins, admin_tagged = sys.argv[2].split()
assert set(bobs) & set(sys.argv[3].split()) and bob_tagged == "True"
assert sys.argv[4] in admins and admin_tagged == "False"
PY
grep -q "document $A_SEEN: [0-9]* near-duplicates\? ([0-9, ]*): not tagged or noted: the token's user may not change it" "$W/watch2.log" \
  || fail "pl-watch --across-owners did not say it skipped #$A_SEEN: $(cat "$W/watch2.log")"
written "$A $B" > "$W/written-across"
python3 - "$W/written-after" "$W/written-across" "$A_BOB" <<'PY' || fail "writes: $(diff "$W/written-after" "$W/written-across")"
import sys
before, after = ({l.split()[0]: l.split()[1:] for l in open(p)} for p in sys.argv[1:3])
changed = {i for i in before if before[i] != after[i]}
assert changed == {sys.argv[3]}, f"changed: {changed}"
assert [int(a) - int(b) for a, b in zip(after[sys.argv[3]], before[sys.argv[3]])] == [1, 1], "one tag, one note"
PY
expect_status 200 GET "/api/documents/$A_BOB/notes/"
python3 -c 'import json,sys; n=[x["note"] for x in json.load(open(sys.argv[1])) if x["note"].startswith("Possible duplicate (paperless-dedupe)")]; sys.exit(0 if len(n)==1 and f"- #{sys.argv[2]} " in n[0] else 1)' "$W/resp" "$A_SEEN" \
  || fail "bob's #$A_BOB has no note naming #$A_SEEN: $(cat "$W/resp")"
watch_stop "$W/watch2.log"
no_token_in "$W/watch.log" "$W/watch2.log" "$W/watch.ndjson" "$W/watch2.ndjson"
if grep -qF "$(cat "$W/bob-token")" "$W/watch.log" "$W/watch2.log" "$LOG"; then fail "bob's token is in a log"; fi
step "ok"
