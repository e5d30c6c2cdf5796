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
#
# env: PAPERLESS_REAL_STATE  state dir for setup.sh (default /tmp/pl-real-paperless; its Python
#                            venv is reused when present, the library is emptied every run)
#      PAPERLESS_REAL_DIR    the backend's scripts (default ../shared/paperless/real)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REAL=${PAPERLESS_REAL_DIR:-$ROOT/../shared/paperless/real}
STATE=$(readlink -m "${PAPERLESS_REAL_STATE:-/tmp/pl-real-paperless}")
[ -d "$REAL" ] || { echo "no Paperless backend at $REAL (set PAPERLESS_REAL_DIR)" >&2; exit 1; }
W=$(mktemp -d)
real_cleanup() { "$REAL/stop.sh" "$STATE" >/dev/null 2>&1 || true; rm -rf "$W"; }
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
