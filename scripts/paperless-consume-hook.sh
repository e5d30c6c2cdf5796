#!/usr/bin/env bash
# paperless-dedupe's consume hook for Paperless-NGX (PAPERLESS_POST_CONSUME_SCRIPT): after each
# consumed document, pl-check looks for its near-duplicates in the persistent index (and adds
# it there); when it has some, the document is tagged `possible-duplicate` and gets a note
# naming and linking the original(s). Nothing is deleted. The hook never fails or blocks a
# consumption: every step is under a time limit, and any error is logged and swallowed (exit 0).
#
# Paperless runs it with DOCUMENT_ID (and DOCUMENT_FILE_NAME, DOCUMENT_SOURCE_PATH, ...) in its
# environment. Its own settings come from the environment or from an env file, PL_HOOK_ENV
# (default: hook.env beside this script), of shell assignments:
#   PL_INDEX        the index folder (pl-index --index), required
#   PL_BIN          where pl-check is (default: beside this script, else on PATH)
#   PL_TOKEN_FILE   a file holding the API token (or PAPERLESS_TOKEN in the environment); the
#                   token is never put on a command line or in the log
#   PAPERLESS_URL   the server as the hook reaches it (default http://localhost:8000)
#   PL_PUBLIC_URL   the server as people open it, for the links in the note (default PAPERLESS_URL)
#   PL_HOOK_TAG     the tag (default possible-duplicate)
#   PL_HOOK_TIMEOUT seconds for the whole check (default 20)
#   PL_HOOK_LOG     a log file (default: stderr only, which Paperless keeps in its log)
#   PL_HOOK_ADD     1 (default): add the document to the index; 0: only check
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ENV_FILE=${PL_HOOK_ENV:-$HERE/hook.env}
# shellcheck disable=SC1090
if [ -f "$ENV_FILE" ]; then set -a; . "$ENV_FILE"; set +a; fi
LOGFILE=${PL_HOOK_LOG:-}
log() {
  local line
  line="$(date -u +%Y-%m-%dT%H:%M:%SZ) paperless-dedupe hook: document ${DOCUMENT_ID:-?}: $*"
  echo "$line" >&2
  [ -n "$LOGFILE" ] && echo "$line" >> "$LOGFILE" 2>/dev/null
  return 0
}
done_ok() { exit 0; }
trap 'log "unexpected error (line $LINENO); consumption goes on"; done_ok' ERR

ID=${DOCUMENT_ID:-${1:-}}
case "$ID" in
  ''|*[!0-9]*) log "no DOCUMENT_ID in the environment: nothing checked"; done_ok ;;
esac
[ -n "${PL_INDEX:-}" ] || { log "PL_INDEX is not set (in $ENV_FILE): nothing checked"; done_ok; }
if [ -n "${PL_BIN:-}" ]; then CHECK="$PL_BIN/pl-check"
elif [ -x "$HERE/pl-check" ]; then CHECK="$HERE/pl-check"
else CHECK=$(command -v pl-check || true); fi
[ -n "$CHECK" ] && [ -x "$CHECK" ] || { log "pl-check not found (set PL_BIN): nothing checked"; done_ok; }
export PAPERLESS_URL=${PAPERLESS_URL:-http://localhost:8000}
TOKEN_ARGS=()
if [ -n "${PL_TOKEN_FILE:-}" ]; then TOKEN_ARGS=(--token-file "$PL_TOKEN_FILE")
elif [ -z "${PAPERLESS_TOKEN:-}" ]; then log "no API token (set PL_TOKEN_FILE): nothing checked"; done_ok; fi
TIMEOUT=${PL_HOOK_TIMEOUT:-20}
ADD=()
[ "${PL_HOOK_ADD:-1}" = 1 ] && ADD=(--add)
TMP=$(mktemp -d) || { log "no temporary folder: nothing checked"; done_ok; }
trap 'rm -rf "$TMP"' EXIT

rc=0
timeout -k 2 "$TIMEOUT" "$CHECK" --index "$PL_INDEX" --id "$ID" "${ADD[@]}" "${TOKEN_ARGS[@]}" \
  --timeout 10 --retries 1 -q > "$TMP/check.json" 2> "$TMP/check.err" || rc=$?
case $rc in
  0) log "no near-duplicate"; done_ok ;;
  3) ;;
  124|137) log "pl-check took more than ${TIMEOUT} s: skipped"; done_ok ;;
  *) log "pl-check failed (exit $rc): $(head -c 500 "$TMP/check.err" | tr '\n' ' ')"; done_ok ;;
esac

# A near-duplicate: the tag and the note, through the API (token read from its file here).
rc=0
timeout -k 2 "$TIMEOUT" python3 - "$TMP/check.json" "$ID" "${PL_HOOK_TAG:-possible-duplicate}" \
  "${PL_PUBLIC_URL:-$PAPERLESS_URL}" > "$TMP/api.out" 2>&1 <<'PY' || rc=$?
import json, os, sys, urllib.parse, urllib.request

check_path, doc_id, tag_name, public = sys.argv[1:5]
base = os.environ["PAPERLESS_URL"].rstrip("/")
if base.endswith("/api"):
    base = base[:-4]
public = public.rstrip("/")
if public.endswith("/api"):
    public = public[:-4]
token_file = os.environ.get("PL_TOKEN_FILE")
token = (open(token_file).readline() if token_file else os.environ["PAPERLESS_TOKEN"]).strip()


def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method)
    req.add_header("Authorization", "Token " + token)
    req.add_header("Accept", "application/json; version=9")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, data=data, timeout=10) as r:
            text = r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        raise SystemExit(f"{method} {path}: HTTP {e.code}: {e.read()[:200]!r}")
    return json.loads(text) if text.strip() else None


rec = json.loads(open(check_path, encoding="utf-8").readline())
dups = rec.get("duplicates", [])
if not dups:
    sys.exit(0)
found = call("GET", "/api/tags/?name__iexact=" + urllib.parse.quote(tag_name))
tags = [t for t in found.get("results", []) if t.get("name", "").lower() == tag_name.lower()]
tag = tags[0]["id"] if tags else call("POST", "/api/tags/", {"name": tag_name})["id"]
call("POST", "/api/documents/bulk_edit/",
     {"documents": [int(doc_id)], "method": "add_tag", "parameters": {"tag": tag}})
lines = [f"Possible duplicate (paperless-dedupe) of {len(dups)} document(s) already in the library:"]
for d in dups[:10]:
    try:
        title = call("GET", f"/api/documents/{d['id']}/?fields=id,title").get("title", "")
    except SystemExit:
        title = ""
    lines.append(f"- #{d['id']} {title!s} (score {d['score']:.2f}): {public}/documents/{d['id']}/details")
lines.append("Nothing was deleted: compare them, and remove the tag if they are different documents.")
call("POST", f"/api/documents/{doc_id}/notes/", {"note": "\n".join(lines)})
print(f"tagged {tag_name} and noted {len(dups)} original(s): " + ", ".join(str(d["id"]) for d in dups[:10]))
PY
if [ "$rc" = 0 ]; then log "$(tail -1 "$TMP/api.out")"
else log "tagging failed (exit $rc): $(tail -c 500 "$TMP/api.out" | tr '\n' ' ')"; fi
done_ok
