# Helpers for the tests against the real Paperless-NGX 3.0.5 backend (../shared/paperless/real),
# sourced by scripts/real-*-test.sh. Sourcing sets ROOT, REAL, STATE, W (a temporary dir removed
# on exit, when the server is stopped too) and defines:
#   step MSG / fail MSG                 progress line / failure (exit 1)
#   real_reset                          an empty library in $STATE (setup.sh; its venv is reused)
#   real_load DOCS IDS_FILE             loads a docs NDJSON, writes the new ids in input order
#   real_start                          starts the server on a free port; exports PAPERLESS_URL,
#                                       sets TOKEN_FILE and LOG, unsets PAPERLESS_TOKEN
#   api METHOD PATH [JSON]              a request with the token (given to curl on stdin, never on a
#                                       command line); prints the status, the body is in $W/resp
#   expect_status WANT METHOD PATH [JSON]
#   no_token_in FILES...                fails if the token is in any of them
#   watch_start INDEX TOKEN_FILE OUT LOG [pl-watch flags]
#                                       starts $BIN/pl-watch on INDEX (on $WATCH_PORT when set,
#                                       else a free port, then set) with the secret in
#                                       $W/secret (made once; SECRET); WATCH is its pid, stopped
#                                       on exit; OUT its -o file, LOG its stderr
#   watch_stop [LOG]                    SIGTERM to pl-watch; fails unless it exits 0
#   watch_workflow                      creates the workflow: Document Added and Document
#                                       Updated post {"doc_id": "{{doc_id}}"} to pl-watch
#                                       with the secret header
#   watch_processed ID OUT              how many records pl-watch's OUT has for document ID
#   watch_wait ID N OUT                 waits (30 s at most) for N records of ID in OUT
#   watch_idle                          waits (10 s at most) for pl-watch's inbox to be empty
#
# env: PAPERLESS_REAL_STATE  state dir for setup.sh (default /tmp/pl-real-paperless; its Python
#                            venv is reused when present, the library is emptied every run)
#      PAPERLESS_REAL_DIR    the backend's scripts (default ../shared/paperless/real)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REAL=${PAPERLESS_REAL_DIR:-$ROOT/../shared/paperless/real}
STATE=$(readlink -m "${PAPERLESS_REAL_STATE:-/tmp/pl-real-paperless}")
[ -d "$REAL" ] || { echo "no Paperless backend at $REAL (set PAPERLESS_REAL_DIR)" >&2; exit 1; }
W=$(mktemp -d)
real_cleanup() {
  [ -z "${WATCH:-}" ] || { kill "$WATCH" 2>/dev/null || true; wait "$WATCH" 2>/dev/null || true; }
  "$REAL/stop.sh" "$STATE" >/dev/null 2>&1 || true
  rm -rf "$W"
}
trap real_cleanup EXIT
step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

real_reset() {
  "$REAL/stop.sh" "$STATE" >/dev/null 2>&1 || true
  rm -rf "$STATE/data" "$STATE/media" "$STATE/consume"
  "$REAL/setup.sh" "$STATE" >/dev/null
  TOKEN_FILE="$STATE/token"
}

real_load() { # DOCS IDS_FILE
  local docs; docs=$(readlink -m "$1")
  (. "$STATE/env.sh" && cd "$STATE/src/src" && "$STATE/venv/bin/python" manage.py shell -c \
    "import sys; sys.argv=['', '$docs']; exec(open('$REAL/load_docs.py').read())") \
    | grep -E '^[0-9]+$' > "$2"
  [ "$(wc -l < "$2")" -eq "$(grep -c . "$docs")" ] || fail "load_docs.py did not load every document of $docs"
}

real_start() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$REAL/start.sh" "$STATE" "$port" >/dev/null
  export PAPERLESS_URL="http://127.0.0.1:$port"
  unset PAPERLESS_TOKEN
  TOKEN_FILE="$STATE/token"
  LOG="$STATE/logs/server.log"
}

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

no_token_in() { # FILES...
  if grep -qF "$(cat "$TOKEN_FILE")" "$@" 2>/dev/null; then fail "the token was written to one of: $*"; fi
}

watch_start() { # INDEX TOKEN_FILE OUT LOG [pl-watch flags]
  local index=$1 token=$2 out=$3 log=$4; shift 4
  [ -s "$W/secret" ] || head -c 24 /dev/urandom | base64 | tr -d '/+=' > "$W/secret"
  SECRET=$(cat "$W/secret")
  "$BIN/pl-watch" --index "$index" --listen "127.0.0.1:${WATCH_PORT:-0}" --token-file "$token" \
    --secret-file "$W/secret" -o "$out" "$@" 2> "$log" &
  WATCH=$!
  for _ in $(seq 100); do grep -qs 'listening on' "$log" && break; sleep 0.1; done
  WATCH_PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
  [ -n "$WATCH_PORT" ] || fail "pl-watch did not start: $(cat "$log")"
}

watch_stop() { # [LOG]
  kill -TERM "$WATCH"; wait "$WATCH" || fail "pl-watch did not exit 0 on SIGTERM: $(cat "${1:-/dev/null}")"
  WATCH=
}

watch_workflow() {
  expect_status 201 POST /api/workflows/ "$(python3 - "$WATCH_PORT" "$SECRET" <<'PY'
import json, sys
port, secret = sys.argv[1:]
print(json.dumps({
    "name": "paperless-dedupe", "order": 0, "enabled": True,
    "triggers": [{"type": 2, "sources": [1, 2, 3, 4]}, {"type": 3, "sources": [1, 2, 3, 4]}],
    "actions": [{"type": 4, "webhook": {
        "url": f"http://127.0.0.1:{port}/webhook", "use_params": False, "as_json": False,
        "params": None, "body": '{"doc_id": "{{doc_id}}"}',
        "headers": {"X-PL-Secret": secret}, "include_document": False}}]}))
PY
)"
}

watch_processed() { # ID OUT
  local n; n=$(grep -c "\"id\":$1," "$2" 2>/dev/null); echo "${n:-0}"
}

watch_wait() { # ID N OUT
  for _ in $(seq 300); do [ "$(watch_processed "$1" "$3")" -ge "$2" ] && return; sleep 0.1; done
  fail "pl-watch did not process document $1 ($2 times)"
}

watch_idle() {
  for _ in $(seq 100); do
    curl -sS "http://127.0.0.1:$WATCH_PORT/health" | grep -q '"queue":0[,}]' && return
    sleep 0.1
  done
  fail "pl-watch's inbox did not empty: $(curl -sS "http://127.0.0.1:$WATCH_PORT/health")"
}
