#!/usr/bin/env bash
# make spark-bench: pl-spark on local[1] and local[2] (one and two executor cores) and on a
# standalone cluster on 127.0.0.1 (`cluster`: a master and two one-core workers, as
# spark-cluster-test starts them) against `make groups` (one machine, the tools on every core)
# in the same run, on generated corpora of SPARK_BENCH_SIZES documents (default 100000; the
# bench's corpus under work/bench/nN is reused, else generated as scripts/bench/run.sh does).
# Each run's peak RSS is that of pl-spark's largest process (scripts/spark/peak_rss.py): on a
# cluster the driver's JVM, on local[N] the one JVM of the driver and the executors. Checks
# the groups are identical, then writes the table (marker spark) and the per-stage costs
# (spark-stages) into docs/SCALE.md. SPARK_BENCH_MARKER=SUFFIX writes them under
# the markers spark-SUFFIX and spark-stages-SUFFIX instead (the 1M run: SPARK_BENCH_SIZES=1000000
# SPARK_BENCH_MASTERS=cluster SPARK_BENCH_MARKER=1m), leaving the other sizes' tables as they are.
# SPARK_BENCH_APPEND=1 adds this run's rows to the last run's (same SPARK_BENCH_WORK), reusing
# its `make groups` of each size: one master at a time, an hour each at a million documents.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
W=${SPARK_BENCH_WORK:-work/spark-bench}
SIZES=${SPARK_BENCH_SIZES:-100000}
MASTERS=${SPARK_BENCH_MASTERS:-local[1] local[2] cluster}
PORT=${SPARK_CLUSTER_PORT:-7077}
UI=${SPARK_CLUSTER_UI:-8080}
scripts/spark/setup.sh
mkdir -p "$W"
W=$(cd "$W" && pwd)
append=${SPARK_BENCH_APPEND:-0}
[ "$append" = 1 ] && [ -s "$W/runs.tsv" ] || : > "$W/runs.tsv"
log() { echo "spark-bench: $*" >&2; }
now() { date +%s.%N; }
. scripts/spark/lib.sh
trap stop_cluster EXIT
case " $MASTERS " in
  *" cluster "*)
    venv=${PL_SPARK_VENV:-$PWD/work/spark-venv}
    home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
    mkdir -p "$W/cluster"
    start_cluster "$home" "$W/cluster" "$PORT" "$UI"
    log "master and two workers on spark://127.0.0.1:$PORT" ;;
esac
# The tools built before anything is timed.
make -s BIN="$BIN" "$BIN/pl-score" > /dev/null
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
  docs=$(realpath "$docs")  # read by the executors too, whatever their folder
  if [ "$append" = 1 ] && [ -s "$W/n$n/make/groups.ndjson" ] \
     && awk -F'\t' -v n="$n" '$1 == n && $2 == "make" { found = 1 } END { exit !found }' "$W/runs.tsv"; then
    log "$n: make groups of the last run kept"
  else
    rm -rf "$W/n$n/make"
    log "$n: make groups"
    t=$(now); make -s groups WORK="$W/n$n/make" DOCS="$docs" BIN="$BIN" > /dev/null; t2=$(now)
    printf '%s\tmake\t%s\t%s\t-\t-\t-\n' "$n" "$t" "$t2" >> "$W/runs.tsv"
  fi
  for m in $MASTERS; do
    out=$W/n$n/${m//[^a-z0-9]/}
    url=$m; [ "$m" = cluster ] && url=spark://127.0.0.1:$PORT
    log "$n: pl-spark --master $url"
    t=$(now)
    python3 scripts/spark/peak_rss.py "$out.rss" scripts/spark/pl-spark -q "$docs" "file://$out" --master "$url" --bin "$BIN"
    t2=$(now)
    same=yes; cat $(ls -d "$out"/groups/part-* | sort) | cmp -s "$W/n$n/make/groups.ndjson" - || same=NO
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$m" "$t" "$t2" "$same" "$out/stages.json" \
      "$(cat "$out.rss")" >> "$W/runs.tsv"
  done
done
python3 scripts/spark/bench_report.py "$W/runs.tsv" "$W/table.md" "$W/stages.md"
marker=${SPARK_BENCH_MARKER:+-$SPARK_BENCH_MARKER}
python3 scripts/splice.py docs/SCALE.md "spark$marker" "$W/table.md"
python3 scripts/splice.py docs/SCALE.md "spark-stages$marker" "$W/stages.md"
log "wrote the tables into docs/SCALE.md"
