#!/usr/bin/env bash
# Prints docs/TUNING.md's bands-versus-rows table from `pl-lsh --explain` (never typed by hand).
# usage: scripts/tuning_table.sh BIN_DIR
set -euo pipefail
bin=${1:-target/release}
echo "| K / bands | rows | 50% at | P(candidate) at s = 0.75 | at s = 0.85 |"
echo "|---|---|---|---|---|"
for kb in "256 32" "256 16" "128 16" "512 32"; do
  set -- $kb
  out=$("$bin/pl-lsh" --explain --perms "$1" --bands "$2")
  half=$(sed -n 's/^50% at similarity //p' <<<"$out")
  p75=$(awk '$1 == "0.75" {print $2}' <<<"$out")
  p85=$(awk '$1 == "0.85" {print $2}' <<<"$out")
  echo "| $1 / $2 | $(( $1 / $2 )) | $half | $p75 | $p85 |"
done
