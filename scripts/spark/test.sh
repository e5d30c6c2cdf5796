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
. scripts/spark/lib.sh

same example examples/docs.ndjson "$W/example/spark" --master 'local[2]'

# Every bucket of two or more documents expanded by Spark's self-join instead of pl-lsh.
log "example: pl-spark --big-bucket 1"
timeout "$LIMIT" scripts/spark/pl-spark -q examples/docs.ndjson "$W/example/big" --big-bucket 1 --bin "$BIN"
joined "$W/example/big/groups" | cmp "$W/example/make/groups.ndjson" -
joined "$W/example/big/scores" | cmp "$W/example/make/scores.ndjson" -

# A bucket limit small enough that many buckets of the example corpus pair nobody, through
# pl-lsh --from-keys and through the self-join alike.
log "example: MAX_BUCKET=2, pl-spark --big-bucket 1"
make -s groups WORK="$W/example/cap" DOCS=examples/docs.ndjson BIN="$BIN" MAX_BUCKET=2 > /dev/null
for big in 1 2000; do
  timeout "$LIMIT" scripts/spark/pl-spark -q examples/docs.ndjson "$W/example/cap$big" --set MAX_BUCKET=2 \
    --big-bucket "$big" --bin "$BIN"
  joined "$W/example/cap$big/groups" | cmp "$W/example/cap/groups.ndjson" -
  joined "$W/example/cap$big/scores" | cmp "$W/example/cap/scores.ndjson" -
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

# Hostile input: refused in one line naming the file's own line, and OUT left as it was.
# OUT holds the example's complete result (and its _SUCCESS) from the first run above.
out="$W/example/spark"
[ -e "$out/_SUCCESS" ] || { log "no _SUCCESS after a complete run"; exit 1; }
joined "$out/groups" > "$W/groups.before"
refused() { # what, docs file, expected message, pl-spark flags...
  local what=$1 docs=$2 want=$3
  shift 3
  if scripts/spark/pl-spark -q "$docs" "$out" --bin "$BIN" "$@" 2> "$W/$what.err"; then
    log "$what was not refused"; exit 1
  fi
  grep -qF "$want" "$W/$what.err" || { log "$what: no '$want' in:"; cat "$W/$what.err" >&2; exit 1; }
  [ "$(wc -l < "$W/$what.err")" -eq 1 ] || { log "$what: more than one line:"; cat "$W/$what.err" >&2; exit 1; }
  joined "$out/groups" | cmp "$W/groups.before" - && [ -e "$out/_SUCCESS" ] ||
    { log "$what: OUT changed by a refused run"; exit 1; }
  ls -a "$out" | grep -q '^\.attempt-' && { log "$what: attempt folder left in OUT"; exit 1; }
  log "$what: refused ($(cat "$W/$what.err"))"
}
{ head -n 100 examples/docs.ndjson; printf '{"id":999999,"content":"caf\xe9 au lait"}\n'; tail -n +101 examples/docs.ndjson; } > "$W/latin1.ndjson"
refused "a line of Latin-1" "$W/latin1.ndjson" "latin1.ndjson: line 101: not UTF-8 text"
# (A blank line before it is skipped, as pl-normalize skips it, and still counted.)
{ cat examples/docs.ndjson; printf '\n  \n{"id":999999,"content":"cut'; } > "$W/cut.ndjson"
lines=$(( $(wc -l < examples/docs.ndjson) + 3 ))
refused "a cut last line" "$W/cut.ndjson" "cut.ndjson: line $lines: invalid JSON"
# A band rule pl-lsh refuses is refused before any stage, in pl-lsh's words.
refused "a bucket of one document" examples/docs.ndjson "a bucket of 1 document pairs nobody" --set EVIDENCE_BUCKET=1
# An empty input: empty outputs, exit 0, as make gives.
: > "$W/empty.ndjson"
scripts/spark/pl-spark -q "$W/empty.ndjson" "$W/empty" --bin "$BIN"
[ -e "$W/empty/_SUCCESS" ] && [ -z "$(joined "$W/empty/groups")" ] && [ -z "$(joined "$W/empty/scores")" ] ||
  { log "an empty input did not give empty outputs"; exit 1; }
log "an empty input: empty outputs"

# Symlinks planted in OUT where the outputs go, live or dangling, are replaced, never
# followed: what they point at is left as it was.
planted="$W/planted" victim="$(cd "$W" && pwd)/victim"
rm -rf "$planted" "$victim" && mkdir -p "$planted" "$victim/dir"
echo keep > "$victim/dir/part-00000" && echo keep > "$victim/file"
ln -s "$victim/dir" "$planted/groups" && ln -s "$victim/file" "$planted/_SUCCESS"
ln -s nowhere/dir "$planted/scores" && ln -s nowhere/file "$planted/stages.json"
scripts/spark/pl-spark -q examples/docs.ndjson "$planted" --bin "$BIN"
[ "$(cat "$victim/dir/part-00000") $(cat "$victim/file")" = "keep keep" ] && [ "$(ls "$victim/dir")" = part-00000 ] ||
  { log "a run wrote through a symlink planted in OUT"; exit 1; }
[ ! -L "$planted/groups" ] && [ ! -L "$planted/scores" ] && [ ! -L "$planted/_SUCCESS" ] &&
  joined "$planted/groups" | cmp "$W/example/make/groups.ndjson" - ||
  { log "OUT/groups after planted symlinks is not the run's"; exit 1; }
log "symlinks planted in OUT: replaced, their targets untouched"

# Two runs publishing into one OUT take turns. A lock another run holds (OUT/.publishing)
# is waited for, and refused when it stays; OUT is unchanged then.
# (The lock that stays is a dangling symlink: present, and never followed.)
ln -s "$victim/made-by-lock" "$out/.publishing"
refused "a publication lock that stays" examples/docs.ndjson ".publishing: another run is publishing into OUT" --publish-wait 2
[ -L "$out/.publishing" ] && [ ! -e "$victim/made-by-lock" ] ||
  { log "a refused run removed another run's lock, or followed it"; exit 1; }
rm "$out/.publishing" && touch "$out/.publishing"
scripts/spark/pl-spark examples/docs.ndjson "$out" --bin "$BIN" 2> "$W/waiting.err" &
waiter=$!
for _ in $(seq 600); do grep -q "waiting for .*publishing" "$W/waiting.err" && break; sleep 0.5; done
grep -q "waiting for .*publishing" "$W/waiting.err" || { log "a run did not wait for the lock:"; cat "$W/waiting.err" >&2; exit 1; }
rm "$out/.publishing"
wait "$waiter" || { log "a run waiting for the lock failed:"; cat "$W/waiting.err" >&2; exit 1; }
[ -e "$out/_SUCCESS" ] && [ ! -e "$out/.publishing" ] && joined "$out/groups" | cmp "$W/example/make/groups.ndjson" - ||
  { log "after waiting for the lock, OUT is not the run's result"; exit 1; }
log "a publication lock: waited for, then published; refused when it stays"

if [ ! -s "$W/gen$N/docs.ndjson" ]; then
  mkdir -p "$W/gen$N"
  log "generating $N documents"
  python3 scripts/gen_corpus --docs "$N" --seed 1 --out-docs "$W/gen$N/docs.tmp" --out-truth "$W/gen$N/truth.ndjson"
  mv "$W/gen$N/docs.tmp" "$W/gen$N/docs.ndjson"
fi
same "gen$N" "$W/gen$N/docs.ndjson" "$W/gen$N/spark" --master 'local[2]'
log "passed"
