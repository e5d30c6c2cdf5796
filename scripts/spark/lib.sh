# Sourced by test.sh, cluster_test.sh and bench.sh, which set W, BIN, LIMIT and log().

# One output of pl-spark as one file: its part files in name order.
joined() { local f; for f in $(ls "$1" | grep '^part-' | sort); do cat "$1/$f"; done; }

# same NAME DOCS OUT [pl-spark flags...]: make groups into $W/NAME/make, pl-spark into OUT (a
# path or a file:// URI), and their groups and scores compared byte for byte.
same() {
  local name=$1 docs=$2 out=$3 f
  shift 3
  make -s groups WORK="$W/$name/make" DOCS="$docs" BIN="$BIN" > /dev/null
  log "$name: pl-spark $*"
  timeout "$LIMIT" scripts/spark/pl-spark "$docs" "$out" "$@" --bin "$BIN"
  for f in groups scores; do
    joined "${out#file://}/$f" | cmp "$W/$name/make/$f.ndjson" - ||
      { log "$name: $f of pl-spark differs from make's"; exit 1; }
  done
  log "$name: groups and scores identical ($(wc -l < "$W/$name/make/groups.ndjson") groups)"
}

# start_cluster SPARK_HOME DIR PORT UI: a Spark standalone master and two workers of one core
# each on 127.0.0.1 (Spark's own launcher, bin/spark-class), their logs and work folders in DIR;
# returns once the master counts two live workers. stop_cluster (set it as the EXIT trap) stops
# them and removes the workers' folders.
cluster_pids=()
cluster_dir=
stop_cluster() {
  local p
  for p in "${cluster_pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${cluster_pids[@]}"; do wait "$p" 2> /dev/null || true; done
  [ -z "$cluster_dir" ] || rm -rf "$cluster_dir/worker1" "$cluster_dir/worker2"
}
start_cluster() {
  local home=$1 port=$3 ui=$4 n p
  cluster_dir=$2
  export SPARK_HOME=$home SPARK_LOCAL_IP=127.0.0.1 SPARK_NO_DAEMONIZE=1
  "$home/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" \
    --webui-port "$ui" > "$cluster_dir/master.log" 2>&1 &
  cluster_pids+=($!)
  for n in 1 2; do
    mkdir -p "$cluster_dir/worker$n"
    "$home/bin/spark-class" org.apache.spark.deploy.worker.Worker "spark://127.0.0.1:$port" \
      --host 127.0.0.1 --cores 1 --memory 3g --work-dir "$cluster_dir/worker$n" --webui-port 0 \
      > "$cluster_dir/worker$n.log" 2>&1 &
    cluster_pids+=($!)
  done
  # Wait on the condition (the master's status page counts two live workers), not on time.
  for _ in $(seq 120); do
    [ "$(alive_workers "$ui")" = 2 ] && return 0
    for p in "${cluster_pids[@]}"; do
      kill -0 "$p" 2> /dev/null ||
        { log "a cluster process died:"; tail -n 5 "$cluster_dir"/*.log >&2; exit 1; }
    done
    sleep 1
  done
  log "the two workers never registered:"
  tail -n 5 "$cluster_dir"/*.log >&2
  exit 1
}
alive_workers() {
  python3 - "$1" << 'EOF'
import json, sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=5) as r:
        print(json.load(r).get("aliveworkers", 0))
except OSError:
    print(0)
EOF
}
