#!/usr/bin/env bash
# Owners against the real Paperless-NGX 3.0.5 backend (../shared/paperless/real), two users
# (issue 58, item 2): load the example corpus (owned by admin), group it once, give a second
# user, bob, one member of one group and the whole of another, then: pl-fetch records each
# document's owner (and an incremental sync after a bulk edit of permissions, which leaves
# `modified`, equals a full one); the pipeline never groups documents of two owners, and
# --across-owners does (pl-report says so); pl-apply with bob's token on a group across owners
# writes nothing to admin's documents (one bob may see but not change is refused as such, the
# ones bob may not see as not visible). Every step checked through the REST API. Exits non-zero on any mismatch.
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
step "ok"
