#!/usr/bin/env bash
# make spark-cluster-test: pl-spark on a real Spark standalone cluster on 127.0.0.1 (a master
# and two workers of one core each, started with Spark's own launcher, bin/spark-class, from
# the pinned pyspark) gives the groups and scores of `make groups`, byte for byte, on the
# example corpus and on the real-OCR fixture, with OUT given as a file:// URI. The cluster is
# stopped and its folders removed however the test ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
W=${SPARK_TEST_WORK:-work/spark-test}/cluster
LIMIT=${SPARK_TEST_TIMEOUT:-2400}
PORT=${SPARK_CLUSTER_PORT:-7077}
UI=${SPARK_CLUSTER_UI:-8080}
scripts/spark/setup.sh
venv=${PL_SPARK_VENV:-$PWD/work/spark-venv}
home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
log() { echo "spark-cluster-test: $*" >&2; }
rm -rf "$W" && mkdir -p "$W"
W=$(cd "$W" && pwd)

. scripts/spark/lib.sh
trap stop_cluster EXIT
start_cluster "$home" "$W" "$PORT" "$UI"
log "master and two workers on spark://127.0.0.1:$PORT"

on_cluster() { # corpus name, docs file
  same "$1" "$2" "file://$W/$1/spark" -q --master "spark://127.0.0.1:$PORT" --partitions 4
  # The executors ran in the workers' folders, not in the driver's.
  ls "$W"/worker1/app-* "$W"/worker2/app-* > /dev/null 2>&1 ||
    { log "$1: no application ran on both workers"; exit 1; }
}
on_cluster example "$PWD/examples/docs.ndjson"
on_cluster ocr "$PWD/examples/ocr/docs.ndjson"
log "passed"
