#!/usr/bin/env bash
# A work folder keeps the documents of one Paperless server: before its docs.ndjson is
# replaced from another source (the bundled example, another file, another server), stop,
# unless SWITCH_SOURCE=1. Otherwise `make report` without PAPERLESS_URL in a folder that holds
# a fetched library would silently review the example corpus instead.
#   scripts/source-guard.sh WORK NEW   (NEW: "paperless URL" or "file PATH")
set -euo pipefail
work=$1 new=$2
# Who the user ran: pl-dedupe sets PL_DEDUPE_CMD, so that it is named in the advice.
cmd=${PL_DEDUPE_CMD:-make}
# The words of each for another folder, and for replacing the documents.
other="WORK=another folder" switch="SWITCH_SOURCE=1"
if [ "$cmd" = pl-dedupe ]; then other="--work another folder" switch="--switch-source"; fi
old=""
if [ -s "$work/docs.source" ]; then
  old=$(cat "$work/docs.source")
elif [ -e "$work/docs.ndjson.state.json" ]; then
  old="paperless (fetched before this folder recorded its source)"
fi
case "$old" in
  paperless*) ;;
  *) exit 0 ;;   # nothing fetched here: files may replace each other as before
esac
case "$old|$new" in
  "$new|$new") exit 0 ;;
  "paperless (fetched before"*"|paperless "*) exit 0 ;;
esac
if [ -n "${SWITCH_SOURCE:-}" ]; then
  echo "$cmd: $work: replacing the documents of ${old#paperless } with those of ${new#* } ($switch)" >&2
  rm -f "$work/docs.source" "$work/docs.ndjson.state.json"
  exit 0
fi
echo "$cmd: $work/docs.ndjson holds the documents of ${old#paperless }, not of ${new#* }: run '$cmd clean' (or use $other) first, or $switch to replace them" >&2
exit 1
