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

pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  rm -rf "$W/worker1" "$W/worker2"
}
trap stop EXIT
export SPARK_HOME=$home SPARK_LOCAL_IP=127.0.0.1 SPARK_NO_DAEMONIZE=1
"$home/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$PORT" \
  --webui-port "$UI" > "$W/master.log" 2>&1 &
pids+=($!)
for n in 1 2; do
  mkdir -p "$W/worker$n"
  "$home/bin/spark-class" org.apache.spark.deploy.worker.Worker "spark://127.0.0.1:$PORT" \
    --host 127.0.0.1 --cores 1 --memory 3g --work-dir "$W/worker$n" --webui-port 0 \
    > "$W/worker$n.log" 2>&1 &
  pids+=($!)
done
# Wait on the condition (the master's status page counts two live workers), not on time.
alive() {
  python3 - "$UI" << 'EOF'
import json, sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=5) as r:
        print(json.load(r).get("aliveworkers", 0))
except OSError:
    print(0)
EOF
}
for _ in $(seq 120); do
  [ "$(alive)" = 2 ] && break
  for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null || { log "a cluster process died:"; tail -n 5 "$W"/*.log >&2; exit 1; }; done
  sleep 1
done
[ "$(alive)" = 2 ] || { log "the two workers never registered:"; tail -n 5 "$W"/*.log >&2; exit 1; }
log "master and two workers on spark://127.0.0.1:$PORT"

. scripts/spark/lib.sh
on_cluster() { # corpus name, docs file
  same "$1" "$2" "file://$W/$1/spark" -q --master "spark://127.0.0.1:$PORT" --partitions 4
  # The executors ran in the workers' folders, not in the driver's.
  ls "$W"/worker1/app-* "$W"/worker2/app-* > /dev/null 2>&1 ||
    { log "$1: no application ran on both workers"; exit 1; }
}
on_cluster example "$PWD/examples/docs.ndjson"
on_cluster ocr "$PWD/examples/ocr/docs.ndjson"
log "passed"
