#!/usr/bin/env bash
# paperless-dedupe's consume hook for Paperless-NGX (PAPERLESS_POST_CONSUME_SCRIPT): after each
# consumed document, pl-check looks for its near-duplicates in the persistent index (and adds
# it there); when it has some, the document is tagged `possible-duplicate` and gets a note
# naming and linking the original(s). Nothing is deleted. The hook never fails or blocks a
# consumption: every step is under a time limit, and any error is logged in one line and
# swallowed (exit 0). Whatever a server or pl-check says is logged with the token replaced by
# <token> (raw, JSON- or URL-escaped, in any letter case; before anything is cut short), and
# the tagging step follows no redirect (the token must not travel to another address). The
# document is fetched before the index's writers' lock is taken; when another run (a cron
# pl-index) holds the lock past 3/4 of the time limit, the document is checked without being
# added and stays queued in the index folder (queue/) for the next pl-index or hook.
#
# Paperless runs it with DOCUMENT_ID (and DOCUMENT_FILE_NAME, DOCUMENT_SOURCE_PATH, ...) in its
# environment: a decimal document id, anything else is refused (logged escaped, one line). Its own settings come from the environment or from an env file, PL_HOOK_ENV
# (default: hook.env beside this script), of shell assignments:
#   PL_INDEX        the index folder (pl-index --index), required
#   PL_BIN          where pl-check is (default: beside this script, else on PATH)
#   PL_TOKEN_FILE   a file holding the API token (or PAPERLESS_TOKEN, or its alias
#                   PAPERLESS_API_TOKEN, in the environment, as for the pl-* tools: an empty one
#                   is unset, both set to different tokens is refused); the token is never put
#                   on a command line or in the log
#   PAPERLESS_URL   the server as the hook reaches it (default http://localhost:8000)
#   PL_PUBLIC_URL   the server as people open it, for the links in the note (default PAPERLESS_URL)
#   PL_HOOK_TAG     the tag (default possible-duplicate)
#   PL_HOOK_TIMEOUT seconds for each of the two steps, the check and the tagging (a whole
#                   number from 1 to 3600; 0, empty or anything else means the default, 20)
#   PL_HOOK_LOG     a log file (default: stderr only, which Paperless keeps in its log)
#   PL_HOOK_ADD     1 (default): add the document to the index; 0: only check
# A document the token's user may not change (user_can_change false) is never tagged or noted.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ENV_FILE=${PL_HOOK_ENV:-$HERE/hook.env}
# shellcheck disable=SC1090
if [ -f "$ENV_FILE" ]; then set -a; . "$ENV_FILE"; set +a; fi
LOGFILE=${PL_HOOK_LOG:-}
LOG_ID='?'  # the document's id once it is known to be one (never raw input)
# One log line: a control character in a message (a newline would make two lines) is
# logged as '?'.
log() {
  local line
  line="$(date -u +%Y-%m-%dT%H:%M:%SZ) paperless-dedupe hook: document $LOG_ID: $*"
  line=${line//[[:cntrl:]]/?}
  echo "$line" >&2
  [ -n "$LOGFILE" ] && echo "$line" >> "$LOGFILE" 2>/dev/null
  return 0
}
done_ok() { exit 0; }
trap 'log "unexpected error (line $LINENO); consumption goes on"; done_ok' ERR

ID=${DOCUMENT_ID-${1:-}}
if [ -z "$ID" ]; then log "no DOCUMENT_ID in the environment: nothing checked"; done_ok; fi
# A document id is a decimal number (1 to 19 digits, no sign, no leading zero); anything else
# is refused, shown escaped on the one line (printf %q) and cut to 40 characters.
if ! [[ $ID =~ ^[1-9][0-9]{0,18}$ ]]; then
  shown=$(printf '%q' "$ID")
  (( ${#shown} > 40 )) && shown="${shown:0:40}..."
  log "DOCUMENT_ID is not a document id (a decimal number): $shown: nothing checked"
  done_ok
fi
LOG_ID=$ID
[ -n "${PL_INDEX:-}" ] || { log "PL_INDEX is not set (in $ENV_FILE): nothing checked"; done_ok; }
if [ -n "${PL_BIN:-}" ]; then CHECK="$PL_BIN/pl-check"
elif [ -x "$HERE/pl-check" ]; then CHECK="$HERE/pl-check"
else CHECK=$(command -v pl-check || true); fi
[ -n "$CHECK" ] && [ -x "$CHECK" ] || { log "pl-check not found (set PL_BIN): nothing checked"; done_ok; }
export PAPERLESS_URL=${PAPERLESS_URL:-http://localhost:8000}
TOKEN_ARGS=()
if [ -n "${PL_TOKEN_FILE:-}" ]; then TOKEN_ARGS=(--token-file "$PL_TOKEN_FILE")
elif [ -z "${PAPERLESS_TOKEN//[[:space:]]/}${PAPERLESS_API_TOKEN//[[:space:]]/}" ]; then
  log "no API token (set PL_TOKEN_FILE, or PAPERLESS_TOKEN or PAPERLESS_API_TOKEN): nothing checked"; done_ok
fi
TIMEOUT=20
if [[ ${PL_HOOK_TIMEOUT:-} =~ ^[0-9]{1,4}$ ]] && (( 10#$PL_HOOK_TIMEOUT >= 1 && 10#$PL_HOOK_TIMEOUT <= 3600 )); then
  TIMEOUT=$((10#$PL_HOOK_TIMEOUT))
elif [ -n "${PL_HOOK_TIMEOUT:-}" ]; then
  log "PL_HOOK_TIMEOUT is not a whole number of seconds from 1 to 3600: the default, 20 s, is used"
fi
# With --add, pl-check queues the document in the index folder first, then waits for the
# index's writers' lock (a cron pl-index, another hook) until 3/4 of the step's time: past
# that it checks without adding, and the document stays queued for the next pl-index or
# pl-check --add (never dropped once fetched).
ADD=()
[ "${PL_HOOK_ADD:-1}" = 1 ] && ADD=(--add --wait $((TIMEOUT * 3 / 4)))
TMP=$(mktemp -d) || { log "no temporary folder: nothing checked"; done_ok; }
trap 'rm -rf "$TMP"' EXIT

# Python shared by both steps: the token (from PL_TOKEN_FILE, else PAPERLESS_TOKEN, else its
# alias PAPERLESS_API_TOKEN, as pl-check reads it, which refuses the two set to different
# tokens before the tagging step runs; never argv)
# and `one_line`, which makes any text one log line with every form of the token in it
# replaced, in any letter case: raw, with escapes before any of its characters (JSON's \" \\ \/, a Python repr's,
# doubled), as \uXXXX or \xXX, URL-encoded (%XX) or as an HTML entity; and base64-encoded inside a longer text.
read -r -d '' REDACT_PY <<'PY' || true
import os, re


def env_tokens():
    """PAPERLESS_TOKEN and its alias PAPERLESS_API_TOKEN, each when set and not blank."""
    return [t for t in (os.environ.get(k, "").strip() for k in ("PAPERLESS_TOKEN", "PAPERLESS_API_TOKEN")) if t]


def read_token():
    f = os.environ.get("PL_TOKEN_FILE")
    try:
        t = open(f, encoding="utf-8", errors="replace").readline() if f else (env_tokens() + [""])[0]
    except OSError:
        t = ""
    return t.strip()


def token_pattern(tokens):
    # The longest first: one token the start of another must not leave the other's end.
    tokens = sorted({t for t in tokens if t}, key=len, reverse=True)
    encoded = sorted({f for t in tokens for f in base64_forms(t)})
    alts = list(map(one_pattern, tokens)) + [base64_pattern(f) for f in encoded]
    return re.compile("|".join(alts), re.IGNORECASE) if tokens else None


def base64_forms(token):
    # The parts of the token's base64 forms (both alphabets) made of its bits alone, for each
    # of the three places it can start in a 3-byte group; none under 8 characters (48 bits).
    import base64
    raw, forms = token.encode(), set()
    for before in range(3):
        buf = b"\0" * before + raw
        first, end = -(-8 * before // 6), 8 * len(buf) // 6
        if end - first >= 8:
            for enc in (base64.b64encode, base64.urlsafe_b64encode):
                forms.add(enc(buf).decode()[first:end])
    return forms


def base64_pattern(form):
    # Case matters in base64; a `/` may come escaped for JSON.
    return "(?-i:" + "".join(r"\\?/" if c == "/" else re.escape(c) for c in form) + ")"


def one_pattern(token):
    parts = []
    for c in token:
        n = ord(c)
        alts = [r"\\*" + re.escape(c), r"\\*u%04x" % n, r"\\*u%04X" % n, r"\\*x%02x" % n, r"\\*x%02X" % n,
                "%%%02x" % n, "%%%02X" % n, "&#%d;" % n, "&#x%x;" % n, "&#x%X;" % n]
        alts += {'"': ["&quot;"], "&": ["&amp;"], "<": ["&lt;"], ">": ["&gt;"], "'": ["&#39;", "&apos;"]}.get(c, [])
        parts.append("(?:" + "|".join(alts) + ")")
    return "".join(parts)


# Every token the hook may hold (a file's, and both variables'), in any case: a server may echo
# the header upper- or lower-cased.
TOKEN_RE = token_pattern([read_token()] + env_tokens())


def redact(text):
    """`text` with every form of the token replaced; always before any cut, which could
    leave a prefix of the token no longer recognised."""
    return TOKEN_RE.sub("<token>", text) if TOKEN_RE is not None else text


def one_line(text, limit=300):
    text = redact(text)
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    text = redact(text)
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
# Still queued (the index was busy, or pl-check was stopped after its fetch): said on the line.
QUEUED=
if [ ${#ADD[@]} -gt 0 ]; then
  for f in "$PL_INDEX/queue/$(printf %020d "$ID")".*.ndjson; do
    [ -e "$f" ] && QUEUED="; queued in the index folder: the next pl-index or pl-check --add adds it"
    break
  done
fi
case $rc in
  0) log "no near-duplicate$QUEUED"; done_ok ;;
  3) ;;
  124|137)
    if [ -n "$QUEUED" ]; then log "pl-check took more than ${TIMEOUT} s: not checked$QUEUED"
    else log "pl-check took more than ${TIMEOUT} s: skipped"; fi
    done_ok ;;
  *) log "pl-check failed (exit $rc): $(last_line "$TMP/check.err")$QUEUED"; done_ok ;;
esac

# A near-duplicate: the tag and the note, through the API (token read from its file here).
# Every failure ends the step with one line on stdout, already redacted.
read -r -d '' API_PY <<'PY' || true
import http.client, json, sys, time, urllib.error, urllib.parse, urllib.request

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
    def __init__(self, msg, status=None):
        super().__init__(msg)
        self.status = status


def cut(text, n=200):
    """A server's text for a message: redacted first, then cut to n characters."""
    text = redact(text)
    return text if len(text) <= n else text[:n] + "..."


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
        raise Failure(f"{method} {path}: HTTP {e.code}: {cut(e.read(1 << 16).decode('utf-8', 'replace'))}",
                      e.code)
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
        raise Failure(f"{method} {path}: the answer is not JSON: {cut(text)}")


def tag_id():
    """The tag's id, created if missing. Hooks run at once may all find no tag and create
    it: the server refuses all creations but one (400, a unique name), and those search
    again and use the one created."""
    for attempt in range(4):
        found = call("GET", "/api/tags/?name__iexact=" + urllib.parse.quote(tag_name))
        tags = [t for t in found.get("results", []) if t.get("name", "").lower() == tag_name.lower()]
        if tags:
            return tags[0]["id"]
        try:
            return call("POST", "/api/tags/", {"name": tag_name, "matching_algorithm": 0})["id"]
        except Failure as e:
            if e.status != 400 or attempt == 3:
                raise
        time.sleep(0.2 * (attempt + 1))


def tag_and_note():
    rec = json.loads(open(check_path, encoding="utf-8").readline())
    dups = rec.get("duplicates", [])
    if not dups:
        return "no near-duplicate"
    # The new document is left alone when the token's user may not change it.
    new = call("GET", f"/api/documents/{doc_id}/?fields=id,owner,user_can_change")
    if new.get("user_can_change") is False:
        return f"skipped: the token's user may not change #{doc_id} (owner {new.get('owner')})"
    shown = []
    for d in dups[:10]:
        try:
            title = call("GET", f"/api/documents/{d['id']}/?fields=id,title").get("title", "")
        except Failure:
            title = ""
        shown.append((d, title))
    tag = tag_id()
    call("POST", "/api/documents/bulk_edit/",
         {"documents": [int(doc_id)], "method": "add_tag", "parameters": {"tag": tag}})
    lines = [f"Possible duplicate (paperless-dedupe) of {len(dups)} document(s) already in the library:"]
    for d, title in shown:
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
  0) log "$(tail -n 1 "$TMP/api.out")$QUEUED" ;;
  124|137) log "tagging took more than ${TIMEOUT} s: skipped" ;;
  *) log "tagging failed (exit $rc): $(last_line "$TMP/api.out" "$TMP/api.err")" ;;
esac
done_ok
