#!/usr/bin/env bash
# The review page with the pages in view (pl-report --thumbs) against the real Paperless-NGX
# 3.0.5 backend (../shared/paperless/real), in headless Chromium: load the example corpus and
# two documents with hostile titles, give them thumbnails (the backend cannot run the
# consumer, which makes them: scripts/real-thumbnails.py draws each one's title and text into a
# WebP where Paperless keeps it, MEDIA_ROOT/documents/thumbnails/{id:07}.webp; one member gets
# none), run the pipeline, then tests/browser/real-thumbs.test.mjs: the served page shows every
# thumbnail through pl-report --serve (the token in no request, answer or page), the missing
# one as "page image unavailable", the file page embeds them, the hostile titles stay inert.
# PL_SCREENSHOT_DOCS=1 also writes docs/report-thumbs.png (`make screenshot-thumbs`).
#
# env: PAPERLESS_REAL_STATE, PAPERLESS_REAL_DIR   see scripts/real-paperless-lib.sh
#      DOCS   corpus to load (default examples/docs.ndjson)
#      BIN    where the pl-* tools are (default target/release)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/real-paperless-lib.sh"
DOCS=$(readlink -m "${DOCS:-$ROOT/examples/docs.ndjson}")
BIN=$(readlink -m "${BIN:-$ROOT/target/release}")
for t in pl-fetch pl-normalize pl-shingle pl-minhash pl-lsh pl-score pl-cluster pl-report; do
  [ -x "$BIN/$t" ] || fail "no $BIN/$t: build it first (cargo build --release -p pl-cli)"
done
export PATH="$BIN:$PATH"
"$ROOT/scripts/browser-setup.sh"

# Two copies of one letter whose titles are markup: a group of their own.
python3 - "$DOCS" "$W/load.ndjson" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
text = ("Hostile Letters Ltd. invoice 99-1234 for the quarter ending March 2026. Amount due "
        "4711.00 EUR, payable within 30 days to account DE02 1203 0000 0000 2020 51.")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.writelines(lines)
    for i, title in enumerate(['<img src=x onerror="window.__pwned=1"> invoice',
                               '</script><script>window.__pwned=1</script> invoice']):
        out.write(json.dumps({"title": title, "content": text + (" Copy." if i else ""),
                              "correspondent": "<b>Hostile</b> Letters", "created": "2026-03-31"}) + "\n")
PY

step "an empty Paperless-NGX in $STATE, loading $(grep -c . "$W/load.ndjson") documents"
real_reset
real_load "$W/load.ndjson" "$W/ids"
real_start

step "fetch and the pipeline"
pl-fetch --token-file "$TOKEN_FILE" -q -o "$W/docs.ndjson"
pl-normalize -q "$W/docs.ndjson" -o "$W/norm.ndjson"
pl-shingle -q "$W/norm.ndjson" | pl-minhash -q > "$W/sigs.bin"
pl-lsh -q "$W/sigs.bin" | pl-score -q --sigs "$W/sigs.bin" --norm "$W/norm.ndjson" > "$W/scores.ndjson"
pl-cluster -q "$W/scores.ndjson" --docs "$W/norm.ndjson" -o "$W/groups.ndjson"
echo "   $(wc -l < "$W/groups.ndjson") groups"

# The member without a thumbnail: a non-primary of the second group, in the page's order.
MISSING=$(python3 -c '
import json, sys
gs = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda g: (-g["confidence"], g["group"]))
print([m for m in gs[1]["members"] if m != gs[1]["primary"]][0])' "$W/groups.ndjson")

step "thumbnails for every document but #$MISSING"
"$STATE/venv/bin/python" "$ROOT/scripts/real-thumbnails.py" "$W/docs.ndjson" \
  "$STATE/media/documents/thumbnails" --skip "$MISSING"
first=$(head -n 1 "$W/ids")
[ "$(api GET "/api/documents/$first/thumb/")" = 200 ] || fail "Paperless does not serve #$first's thumbnail"
[ "$(head -c 4 "$W/resp")" = RIFF ] || fail "#$first's thumbnail is not a WebP"
expect_status 404 GET "/api/documents/$MISSING/thumb/"

step "the page in headless Chromium"
(cd "$ROOT/tests/browser" && PL_BIN="$BIN" PL_GROUPS="$W/groups.ndjson" PL_DOCS="$W/docs.ndjson" \
  PL_SCORES="$W/scores.ndjson" TOKEN_FILE="$TOKEN_FILE" MISSING="$MISSING" TMPDIR="$W" \
  node --test real-thumbs.test.mjs)
no_token_in "$W"/*.ndjson "$W"/*.html
echo "real-report-test: ok"
