#!/usr/bin/env bash
# make spark-bench: pl-spark on local[1] and local[2] (one and two executor cores) against
# `make groups` (one machine, the tools on every core) in the same run, on generated corpora of
# SPARK_BENCH_SIZES documents (default 100000; the bench's corpus under work/bench/nN is reused,
# else generated as scripts/bench/run.sh does). Checks the groups are identical, then writes the
# table into README.md (marker spark) and the per-stage costs into docs/SCALE.md (spark-stages).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
W=${SPARK_BENCH_WORK:-work/spark-bench}
SIZES=${SPARK_BENCH_SIZES:-100000}
MASTERS=${SPARK_BENCH_MASTERS:-local[1] local[2]}
scripts/spark/setup.sh
mkdir -p "$W"
: > "$W/runs.tsv"
log() { echo "spark-bench: $*" >&2; }
now() { date +%s.%N; }
for n in $SIZES; do
  docs=work/bench/n$n/docs.ndjson
  if [ ! -s "$docs" ]; then
    docs=$W/n$n/docs.ndjson
    if [ ! -s "$docs" ]; then
      mkdir -p "$W/n$n"
      log "generating $n documents"
      python3 scripts/gen_corpus --docs "$n" --seed 1 --out-docs "$docs.tmp" --out-truth "$W/n$n/truth.ndjson"
      mv "$docs.tmp" "$docs"
    fi
  fi
  rm -rf "$W/n$n/make"
  log "$n: make groups"
  t=$(now); make -s groups WORK="$W/n$n/make" DOCS="$docs" BIN="$BIN" > /dev/null; t2=$(now)
  printf '%s\tmake\t%s\t%s\t-\t-\n' "$n" "$t" "$t2" >> "$W/runs.tsv"
  for m in $MASTERS; do
    out=$W/n$n/${m//[^a-z0-9]/}
    log "$n: pl-spark --master $m"
    t=$(now); scripts/spark/pl-spark -q "$docs" "$out" --master "$m" --bin "$BIN"; t2=$(now)
    same=yes; cat $(ls -d "$out"/groups/part-* | sort) | cmp -s "$W/n$n/make/groups.ndjson" - || same=NO
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$m" "$t" "$t2" "$same" "$out/stages.json" >> "$W/runs.tsv"
  done
done
python3 scripts/spark/bench_report.py "$W/runs.tsv" "$W/table.md" "$W/stages.md"
python3 scripts/splice.py README.md spark "$W/table.md"
python3 scripts/splice.py docs/SCALE.md spark-stages "$W/stages.md"
log "wrote the table into README.md and docs/SCALE.md"
