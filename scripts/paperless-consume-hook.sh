#!/usr/bin/env bash
# paperless-dedupe's consume hook for Paperless-NGX (PAPERLESS_POST_CONSUME_SCRIPT): after each
# consumed document, pl-check looks for its near-duplicates in the persistent index (and adds
# it there); when it has some, the document is tagged `possible-duplicate` and gets a note
# naming and linking the original(s). Nothing is deleted. The hook never fails or blocks a
# consumption: every step is under a time limit, and any error is logged in one line and
# swallowed (exit 0). Whatever a server or pl-check says is logged with the token replaced by
# <token> (raw, JSON- or URL-escaped), and the tagging step follows no redirect (the token
# must not travel to another address).
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
#   PL_HOOK_TIMEOUT seconds for each of the two steps, the check and the tagging (a whole
#                   number from 1 to 3600; 0, empty or anything else means the default, 20)
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
TIMEOUT=20
if [[ ${PL_HOOK_TIMEOUT:-} =~ ^[0-9]{1,4}$ ]] && (( 10#$PL_HOOK_TIMEOUT >= 1 && 10#$PL_HOOK_TIMEOUT <= 3600 )); then
  TIMEOUT=$((10#$PL_HOOK_TIMEOUT))
elif [ -n "${PL_HOOK_TIMEOUT:-}" ]; then
  log "PL_HOOK_TIMEOUT is not a whole number of seconds from 1 to 3600: the default, 20 s, is used"
fi
ADD=()
[ "${PL_HOOK_ADD:-1}" = 1 ] && ADD=(--add)
TMP=$(mktemp -d) || { log "no temporary folder: nothing checked"; done_ok; }
trap 'rm -rf "$TMP"' EXIT

# Python shared by both steps: the token (from PL_TOKEN_FILE or PAPERLESS_TOKEN, never argv)
# and `one_line`, which makes any text one log line with every form of the token in it
# replaced: raw, with escapes before any of its characters (JSON's \" \\ \/, a Python repr's,
# doubled), as \uXXXX or \xXX, URL-encoded (%XX) or as an HTML entity.
read -r -d '' REDACT_PY <<'PY' || true
import os, re


def read_token():
    f = os.environ.get("PL_TOKEN_FILE")
    try:
        t = open(f, encoding="utf-8", errors="replace").readline() if f else os.environ.get("PAPERLESS_TOKEN", "")
    except OSError:
        t = ""
    return t.strip()


def token_pattern(token):
    parts = []
    for c in token:
        n = ord(c)
        alts = [r"\\*" + re.escape(c), r"\\*u%04x" % n, r"\\*u%04X" % n, r"\\*x%02x" % n, r"\\*x%02X" % n,
                "%%%02x" % n, "%%%02X" % n, "&#%d;" % n, "&#x%x;" % n, "&#x%X;" % n]
        alts += {'"': ["&quot;"], "&": ["&amp;"], "<": ["&lt;"], ">": ["&gt;"], "'": ["&#39;", "&apos;"]}.get(c, [])
        parts.append("(?:" + "|".join(alts) + ")")
    return re.compile("".join(parts)) if parts else None


TOKEN_RE = token_pattern(read_token())


def one_line(text, limit=300):
    if TOKEN_RE is not None:
        text = TOKEN_RE.sub("<token>", text)
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if TOKEN_RE is not None:
        text = TOKEN_RE.sub("<token>", text)
    return text if len(text) <= limit else text[:limit] + "..."
PY

# The last line of the first of the files that has one (a step's error), as one redacted log line; when Python cannot run,
# nothing of it (unredacted text is never logged).
last_line() {
  python3 -c "$REDACT_PY
import sys
last = '(no message)'
for f in sys.argv[1:]:
    lines = [l for l in open(f, encoding='utf-8', errors='replace').read().splitlines() if l.strip()]
    if lines:
        last = lines[-1]
        break
print(one_line(last))" "$@" 2>/dev/null || echo "(its message is not shown: python3 could not redact it)"
}

rc=0
timeout -k 2 "$TIMEOUT" "$CHECK" --index "$PL_INDEX" --id "$ID" "${ADD[@]}" "${TOKEN_ARGS[@]}" \
  --timeout 10 --retries 1 -q > "$TMP/check.json" 2> "$TMP/check.err" || rc=$?
case $rc in
  0) log "no near-duplicate"; done_ok ;;
  3) ;;
  124|137) log "pl-check took more than ${TIMEOUT} s: skipped"; done_ok ;;
  *) log "pl-check failed (exit $rc): $(last_line "$TMP/check.err")"; done_ok ;;
esac

# A near-duplicate: the tag and the note, through the API (token read from its file here).
# Every failure ends the step with one line on stdout, already redacted.
read -r -d '' API_PY <<'PY' || true
import http.client, json, sys, urllib.error, urllib.parse, urllib.request

check_path, doc_id, tag_name, public = sys.argv[1:5]
base = os.environ["PAPERLESS_URL"].rstrip("/")
if base.endswith("/api"):
    base = base[:-4]
public = public.rstrip("/")
if public.endswith("/api"):
    public = public[:-4]
token = read_token()
MAX_ANSWER = 4 << 20


class Failure(Exception):
    pass


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect, as the pl-* tools do: the token must not travel elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        to = urllib.parse.urlsplit(newurl)
        raise Failure(f"{req.get_method()} {urllib.parse.urlsplit(req.full_url).path}: HTTP {code} "
                      f"redirect to {to.scheme}://{to.netloc}: not followed (the token is not sent there)")


OPENER = urllib.request.build_opener(NoRedirect)


def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method)
    req.add_header("Authorization", "Token " + token)
    req.add_header("Accept", "application/json; version=9")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    try:
        with OPENER.open(req, data=data, timeout=10) as r:
            raw = r.read(MAX_ANSWER + 1)
    except urllib.error.HTTPError as e:
        raise Failure(f"{method} {path}: HTTP {e.code}: {e.read(300).decode('utf-8', 'replace')}")
    except urllib.error.URLError as e:
        raise Failure(f"{method} {path}: {e.reason}")
    except TimeoutError:
        raise Failure(f"{method} {path}: no answer within 10 s")
    except (OSError, http.client.HTTPException) as e:
        raise Failure(f"{method} {path}: {type(e).__name__}: {e}")
    if len(raw) > MAX_ANSWER:
        raise Failure(f"{method} {path}: the answer is over {MAX_ANSWER >> 20} MiB")
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text) if text.strip() else None
    except ValueError:
        raise Failure(f"{method} {path}: the answer is not JSON: {text[:200]}")


def tag_and_note():
    rec = json.loads(open(check_path, encoding="utf-8").readline())
    dups = rec.get("duplicates", [])
    if not dups:
        return "no near-duplicate"
    found = call("GET", "/api/tags/?name__iexact=" + urllib.parse.quote(tag_name))
    tags = [t for t in found.get("results", []) if t.get("name", "").lower() == tag_name.lower()]
    tag = tags[0]["id"] if tags else call("POST", "/api/tags/", {"name": tag_name})["id"]
    call("POST", "/api/documents/bulk_edit/",
         {"documents": [int(doc_id)], "method": "add_tag", "parameters": {"tag": tag}})
    lines = [f"Possible duplicate (paperless-dedupe) of {len(dups)} document(s) already in the library:"]
    for d in dups[:10]:
        try:
            title = call("GET", f"/api/documents/{d['id']}/?fields=id,title").get("title", "")
        except Failure:
            title = ""
        lines.append(f"- #{d['id']} {title!s} (score {d['score']:.2f}): {public}/documents/{d['id']}/details")
    lines.append("Nothing was deleted: compare them, and remove the tag if they are different documents.")
    call("POST", f"/api/documents/{doc_id}/notes/", {"note": "\n".join(lines)})
    return f"tagged {tag_name} and noted {len(dups)} original(s): " + ", ".join(str(d["id"]) for d in dups[:10])


try:
    print(one_line(tag_and_note()))
except Failure as e:
    print(one_line(str(e)))
    sys.exit(1)
except BaseException as e:  # anything else (a bad answer's shape, an interrupt): one line too
    print(one_line(f"{type(e).__name__}: {e}"))
    sys.exit(1)
PY
rc=0
timeout -k 2 "$TIMEOUT" python3 -c "$REDACT_PY
$API_PY" "$TMP/check.json" "$ID" "${PL_HOOK_TAG:-possible-duplicate}" \
  "${PL_PUBLIC_URL:-$PAPERLESS_URL}" > "$TMP/api.out" 2> "$TMP/api.err" || rc=$?
case $rc in
  0) log "$(tail -n 1 "$TMP/api.out")" ;;
  124|137) log "tagging took more than ${TIMEOUT} s: skipped" ;;
  *) log "tagging failed (exit $rc): $(last_line "$TMP/api.out" "$TMP/api.err")" ;;
esac
done_ok
