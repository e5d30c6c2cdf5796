#!/usr/bin/env bash
# make spark-test: pl-spark on local[2] gives the groups (and scores) of `make groups`, byte
# for byte, on the example corpus and on a generated corpus of SPARK_TEST_DOCS documents
# (default 100000); and a repeated id is refused. Sets up Java 17 and pyspark itself
# (setup.sh). Each pl-spark run is bounded by SPARK_TEST_TIMEOUT seconds (default 2400).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
W=${SPARK_TEST_WORK:-work/spark-test}
N=${SPARK_TEST_DOCS:-100000}
LIMIT=${SPARK_TEST_TIMEOUT:-2400}
mkdir -p "$W"
scripts/spark/setup.sh
log() { echo "spark-test: $*" >&2; }

same() { # corpus name, docs file: make groups vs pl-spark on local[2]
  local name=$1 docs=$2
  log "$name: make groups"
  make -s groups WORK="$W/$name/make" DOCS="$docs" BIN="$BIN" > /dev/null
  log "$name: pl-spark --master local[2]"
  timeout "$LIMIT" scripts/spark/pl-spark "$docs" "$W/$name/spark" --master 'local[2]' --bin "$BIN"
  for f in groups scores; do
    if ! cmp "$W/$name/make/$f.ndjson" "$W/$name/spark/$f.ndjson"; then
      log "$name: $f.ndjson of pl-spark differs from make's"; exit 1
    fi
  done
  log "$name: groups and scores identical ($(wc -l < "$W/$name/make/groups.ndjson") groups)"
}

same example examples/docs.ndjson

# Every bucket of two or more documents expanded by Spark's self-join instead of pl-lsh.
log "example: pl-spark --big-bucket 1"
timeout "$LIMIT" scripts/spark/pl-spark -q examples/docs.ndjson "$W/example/big" --big-bucket 1 --bin "$BIN"
cmp "$W/example/make/groups.ndjson" "$W/example/big/groups.ndjson"
cmp "$W/example/make/scores.ndjson" "$W/example/big/scores.ndjson"

# A bucket limit small enough that many buckets of the example corpus pair nobody, through
# pl-lsh --from-keys and through the self-join alike.
log "example: MAX_BUCKET=2, pl-spark --big-bucket 1"
make -s groups WORK="$W/example/cap" DOCS=examples/docs.ndjson BIN="$BIN" MAX_BUCKET=2 > /dev/null
for big in 1 2000; do
  timeout "$LIMIT" scripts/spark/pl-spark -q examples/docs.ndjson "$W/example/cap$big" --set MAX_BUCKET=2 \
    --big-bucket "$big" --bin "$BIN"
  cmp "$W/example/cap/groups.ndjson" "$W/example/cap$big/groups.ndjson"
  cmp "$W/example/cap/scores.ndjson" "$W/example/cap$big/scores.ndjson"
done
cmp -s "$W/example/make/scores.ndjson" "$W/example/cap/scores.ndjson" &&
  { log "MAX_BUCKET=2 changed nothing: the check above proves nothing"; exit 1; }

# A repeated id, in two different lines: refused with one line naming it.
head -n 40 examples/docs.ndjson > "$W/repeated.ndjson"
head -n 1 examples/docs.ndjson >> "$W/repeated.ndjson"
if scripts/spark/pl-spark -q "$W/repeated.ndjson" "$W/repeated" --bin "$BIN" 2> "$W/repeated.err"; then
  log "a repeated id was not refused"; exit 1
fi
id=$(head -n 1 examples/docs.ndjson | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
grep -q "id $id repeated" "$W/repeated.err" || { log "no 'id $id repeated' in:"; cat "$W/repeated.err" >&2; exit 1; }

if [ ! -s "$W/gen$N/docs.ndjson" ]; then
  mkdir -p "$W/gen$N"
  log "generating $N documents"
  python3 scripts/gen_corpus --docs "$N" --seed 1 --out-docs "$W/gen$N/docs.tmp" --out-truth "$W/gen$N/truth.ndjson"
  mv "$W/gen$N/docs.tmp" "$W/gen$N/docs.ndjson"
fi
same "gen$N" "$W/gen$N/docs.ndjson"
log "passed"
