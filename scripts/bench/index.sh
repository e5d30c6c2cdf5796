#!/usr/bin/env bash
# The persistent index (issue 19): pl-check's latency per document and an incremental run
# after 100 new documents, against the full pipeline on the same documents, on the generated
# corpus of INDEX_DOCS documents (default 100000; the corpus of `make bench`, generated the
# same way when missing). Writes $W/index/summary.md and splices it into BENCH.md between
# <!-- index:start --> and <!-- index:end -->.
#
#   make bench-index                  100,000 documents
#   INDEX_DOCS=10000 make bench-index 10,000
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
W=${BENCH_WORK:-work/bench}
N=${INDEX_DOCS:-100000}
NEW=100
CHECKS=${INDEX_CHECKS:-200}
D=$W/n$N
R=$W/index/n$N
log() { echo "bench-index: $*" >&2; }
mkdir -p "$D" "$R"
if [ ! -s "$D/docs.ndjson" ]; then
  log "corpus of $N documents"
  python3 scripts/gen_corpus --docs "$N" --seed 1 --out-docs "$D/docs.ndjson.tmp" \
    --out-truth "$D/truth.ndjson"
  mv "$D/docs.ndjson.tmp" "$D/docs.ndjson"
fi
total=$(wc -l < "$D/docs.ndjson")
base=$((total - NEW))
# The library before: every document but the last NEW (and the last CHECKS for pl-check).
head -n "$base" "$D/docs.ndjson" > "$R/base.ndjson"
tail -n "$CHECKS" "$R/base.ndjson" > "$R/checks.ndjson"
head -n $((base - CHECKS)) "$R/base.ndjson" > "$R/library.ndjson"
cp "$D/docs.ndjson" "$R/all.ndjson"
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
now() { date +%s.%N; }

# 1. The index of the library, from scratch (the whole pipeline, once).
rm -rf "$R/ix-check"
t0=$(now)
"$BIN/pl-index" --index "$R/ix-check" "$R/library.ndjson" -o /dev/null -q
t1=$(now)
build=$(secs "$t0" "$t1")
log "index of $((base - CHECKS)) documents built in $build s"

# 2. pl-check, one process per document as the consume hook runs it (fetch excluded).
: > "$R/check-ms.txt"
found=0
while IFS= read -r line; do
  a=$(now)
  rc=0
  printf '%s\n' "$line" | "$BIN/pl-check" --index "$R/ix-check" -q > /dev/null || rc=$?
  b=$(now)
  [ "$rc" = 0 ] || [ "$rc" = 3 ] || { log "pl-check failed ($rc)"; exit 1; }
  [ "$rc" = 3 ] && found=$((found + 1))
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }' >> "$R/check-ms.txt"
done < "$R/checks.ndjson"
sort -n "$R/check-ms.txt" > "$R/check-sorted.txt"
pct() { awk -v p="$1" '{ v[NR] = $1 } END { i = int((NR * p + 99) / 100); if (i < 1) i = 1; print v[i] }' "$R/check-sorted.txt"; }
p50=$(pct 50); p99=$(pct 99); pmax=$(tail -1 "$R/check-sorted.txt")
log "pl-check: p50 $p50 ms, p99 $p99 ms over $CHECKS documents ($found with near-duplicates)"

# 3. The index of the base library, then an incremental run after NEW new documents.
"$BIN/pl-index" --index "$R/ix-check" "$R/base.ndjson" -o /dev/null -q
t0=$(now)
"$BIN/pl-index" --index "$R/ix-check" "$R/all.ndjson" -o "$R/index-groups.ndjson" -v 2> "$R/incremental.log"
t1=$(now)
incr=$(secs "$t0" "$t1")
log "incremental run after $NEW new documents: $incr s ($(tail -1 "$R/incremental.log"))"

# 4. The full pipeline on the same documents (make groups, default parameters).
# INDEX_REUSE_FULL=1 keeps the groups and the time of an earlier run of this step on the same
# documents (it takes minutes at 100,000), and says so.
full_note=""
if [ "${INDEX_REUSE_FULL:-0}" = 1 ] && [ -s "$R/work/groups.ndjson" ] && [ -s "$R/full-secs" ] \
   && cmp -s "$R/all.ndjson" "$R/work/docs.ndjson"; then
  full=$(cat "$R/full-secs")
  full_note=" (measured by an earlier run of this script on the same documents)"
else
  rm -rf "$R/work"
  t0=$(now)
  make -s -f pipeline.mk groups WORK="$R/work" DOCS="$R/all.ndjson" BIN="$BIN" > /dev/null
  t1=$(now)
  full=$(secs "$t0" "$t1")
  echo "$full" > "$R/full-secs"
fi
if cmp -s <(sort "$R/index-groups.ndjson") <(sort "$R/work/groups.ndjson"); then same=yes; else same=NO; fi
groups=$(wc -l < "$R/work/groups.ndjson")
log "full pipeline: $full s; groups identical: $same"

# 5. Sizes.
ix=$(du -sb "$R/ix-check" | cut -f1)
sigs=$(stat -c %s "$R/work/sigs.bin")
edges=$(( $(stat -c %s "$R/work/heads.bin") + $(stat -c %s "$R/work/tails.bin") ))
norm=$(stat -c %s "$R/work/norm.ndjson")
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

cat > "$W/index/summary.md" <<MD
- command: \`INDEX_DOCS=$N make bench-index\` ($(date -u +%Y-%m-%d), $(nproc) cores, load average at the end $(cut -d' ' -f1 /proc/loadavg)); default parameters (pipeline.mk).
- corpus: $total generated documents (\`scripts/gen_corpus --seed 1\`); the library indexed is the first $((base - CHECKS)), pl-check is run on the next $CHECKS, the incremental run adds the last $NEW.

| measure | value | target |
|---|---:|---|
| index of $((base - CHECKS)) documents built from scratch | $build s | |
| pl-check per document, p50 (one process per document, wall) | $p50 ms | ≤ 20 ms |
| pl-check per document, p99 | $p99 ms | ≤ 100 ms |
| pl-check per document, slowest | $pmax ms | |
| documents checked with a near-duplicate (exit 3) | $found of $CHECKS | |
| incremental run after $NEW new documents ($base → $total) | $incr s | ≤ 2 s |
| full pipeline on the same $total documents (\`make groups\`)$full_note | $full s | |
| groups of the incremental run identical to the full run's ($groups groups) | $same | identical |
| index on disk | $(mib "$ix") MiB | |
| whole-text signatures (sigs.bin) + norm texts (norm.ndjson) | $(mib $((sigs + norm))) MiB | |
| index / (2 × signatures + norm texts) | $(ratio "$ix" $((2 * sigs + norm))) | ≤ 1 |
| index / (2 × all three signature streams + norm texts) | $(ratio "$ix" $((2 * (sigs + edges) + norm))) | |

The incremental run's own account: \`$(tail -1 "$R/incremental.log" | sed 's/^pl-index: //')\`
MD
python3 scripts/splice.py BENCH.md index "$W/index/summary.md"
log "spliced into BENCH.md"
