#!/usr/bin/env bash
# One partition of a pl-spark stage: reads the partition's lines on stdin, runs the pl-* tools
# on them as pipeline.mk does on the whole corpus, writes NDJSON lines on stdout.
#
#   stage.sh normalize docs lines -> norm lines
#   stage.sh keys      norm lines -> band-key rows (pl-lsh --emit band-keys; number rows with
#                      NUMBERS=1) and corpus counts
#   stage.sh from-keys buckets {"sketch","band","key","ids"} -> pairs' band counts and evidence
#   stage.sh score     "N<TAB>norm line" and "P<TAB>candidate line" -> scored pairs, and
#                      every pair held apart (--apart-all: the components are Spark's)
#   stage.sh cluster   "D<TAB>norm line" and "S<TAB>scored pair" (whole components) -> groups
#
# Environment: PL_BIN (where the tools are), PL_COUNTS (score: the corpus counts), and the
# pipeline's parameters under pipeline.mk's names (NGRAM, UNIT, ... CLUSTER_FLAGS).
set -euo pipefail
stage=$1
bin=${PL_BIN:?PL_BIN names the folder of the pl-* tools}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pl-spark.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Word-split on purpose: the *_FLAGS hold several flags, as in pipeline.mk.
# shellcheck disable=SC2086
sigs() { # norm file -> whole texts' signatures (pl-minhash shingles them, as pipeline.mk)
  "$bin/pl-minhash" -q "$1" --unit "$UNIT" --ngram "$NGRAM" --min-words "$MIN_WORDS" $SHINGLE_FLAGS \
    --perms "$PERMS" --seed "$SEED" --scheme "$SCHEME" -o "$2"
}
split() { # tagged lines -> one file per tag (a norm line repeated within a partition once)
  awk -F'\t' -v dir="$tmp" '{ print substr($0, 3) > (dir "/" $1) }'
  touch "$tmp/$1" "$tmp/$2"
  sort -u -o "$tmp/$1" "$tmp/$1"
}
case $stage in
  normalize)
    "$bin/pl-normalize" -q
    ;;
  from-keys)
    # Its buckets are the ones MAX_BUCKET pairs; the flag gives their weights (EVIDENCE_BUCKET
    # is asked of the sums, by pl_spark.py).
    "$bin/pl-lsh" -q --from-keys --partial --max-bucket "$MAX_BUCKET"
    ;;
  keys)
    cat > "$tmp/norm.ndjson"
    sigs "$tmp/norm.ndjson" "$tmp/sigs.bin"
    also=()
    if [ "$EDGE_WORDS" != 0 ]; then
      for part in head tail; do
        # shellcheck disable=SC2086
        "$bin/pl-minhash" -q "$tmp/norm.ndjson" --unit "$UNIT" --ngram "$NGRAM" --min-words "$MIN_WORDS" \
          $SHINGLE_FLAGS --part "$part:$EDGE_WORDS" --perms "$PERMS" --seed "$SEED" --scheme "$SCHEME" \
          -o "$tmp/$part.bin"
        also+=(--also "$tmp/$part.bin")
      done
    fi
    numbers=()
    [ "$NUMBERS" = 1 ] && numbers=(--numbers "$tmp/norm.ndjson" --max-words "$MAX_WORDS")
    "$bin/pl-lsh" -q "$tmp/sigs.bin" "${also[@]}" "${numbers[@]}" --perms "$PERMS" --bands "$BANDS" --emit band-keys
    # shellcheck disable=SC2086
    "$bin/pl-score" -q --count-corpus --norm "$tmp/norm.ndjson" --max-words "$MAX_WORDS" $SCORE_FLAGS
    ;;
  score)
    split N P
    sigs "$tmp/N" "$tmp/sigs.bin"
    # shellcheck disable=SC2086
    "$bin/pl-score" -q "$tmp/P" --sigs "$tmp/sigs.bin" --norm "$tmp/N" --corpus-counts "${PL_COUNTS:?}" \
      --perms "$PERMS" --threshold "$THRESHOLD" --min-similarity "$MIN_SIMILARITY" --jaccard-weight "$JACCARD_WEIGHT" \
      --fuzzy-weight "$FUZZY_WEIGHT" --fuzzy-sample "$FUZZY_SAMPLE" --max-words "$MAX_WORDS" --threads 1 \
      --apart-all $SCORE_FLAGS
    ;;
  cluster)
    split D S
    # shellcheck disable=SC2086
    "$bin/pl-cluster" -q "$tmp/S" --docs "$tmp/D" $CLUSTER_FLAGS
    ;;
  *)
    echo "stage.sh: unknown stage '$stage' (keys, score or cluster)" >&2
    exit 2
    ;;
esac
