#!/usr/bin/env bash
# The persistent index (issue 19): pl-check's latency per document and an incremental run
# after 100 new documents, against the full pipeline on the same documents, on the generated
# corpus of INDEX_DOCS documents (default 100000; the corpus of `make bench`, generated the
# same way when missing). Writes $W/index/summary.md and splices it into BENCH.md between
# <!-- index-N:start --> and <!-- index-N:end --> (sections for 30000 and 100000).
#
#   make bench-index                  100,000 documents
#   INDEX_DOCS=30000 make bench-index 30,000
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

# 1. The index of the library, from scratch (the whole pipeline, once). INDEX_REUSE_BUILD=1
# keeps the library's index and its build time from an earlier run of this script.
build_note=""
if [ "${INDEX_REUSE_BUILD:-0}" = 1 ] && [ -s "$R/ix-library/index.sqlite" ] && [ -s "$R/build-secs" ]; then
  build=$(cat "$R/build-secs")
  build_note=" (an earlier run of this script)"
else
  rm -rf "$R/ix-library"
  t0=$(now)
  "$BIN/pl-index" --index "$R/ix-library" "$R/library.ndjson" -o /dev/null -q
  t1=$(now)
  build=$(secs "$t0" "$t1")
  echo "$build" > "$R/build-secs"
fi
log "index of $((base - CHECKS)) documents built in $build s"

# 2. pl-check, one process per document as the consume hook runs it (fetch excluded): the wall
# time of each process (spawned and timed by Python), and pl-check's own time for the document
# (-v), which leaves out the process start.
python3 - "$BIN/pl-check" "$R/ix-library" "$R/checks.ndjson" "$R/check-ms.txt" <<'PY'
import re, subprocess, sys, time
check, index, docs, out = sys.argv[1:]
rows = []
for line in open(docs, encoding="utf-8"):
    t = time.perf_counter()
    p = subprocess.run([check, "--index", index, "-v"], input=line.encode(), capture_output=True)
    wall = (time.perf_counter() - t) * 1000
    if p.returncode not in (0, 3):
        sys.exit(f"pl-check failed ({p.returncode}): {p.stderr.decode()[:300]}")
    own = float(re.search(rb"checked in ([0-9.]+) ms", p.stderr).group(1))
    rows.append(f"{wall:.2f} {own:.2f} {p.returncode}")
open(out, "w").write("\n".join(rows) + "\n")
PY
found=$(awk '$3 == 3' "$R/check-ms.txt" | wc -l)
pct() { # COLUMN PERCENT
  cut -d' ' -f"$1" "$R/check-ms.txt" | sort -n \
    | awk -v p="$2" '{ v[NR] = $1 } END { i = int((NR * p + 99) / 100); if (i < 1) i = 1; print v[i] }'
}
p50=$(pct 1 50); p99=$(pct 1 99); pmax=$(pct 1 100)
o50=$(pct 2 50); o99=$(pct 2 99); omax=$(pct 2 100)
log "pl-check: p50 $p50 ms, p99 $p99 ms per process; $o50 / $o99 ms in pl-check's own account ($found with near-duplicates)"

# 3. The index of the base library, then an incremental run after NEW new documents.
rm -rf "$R/ix-check"
cp -r "$R/ix-library" "$R/ix-check"
"$BIN/pl-index" --index "$R/ix-check" "$R/base.ndjson" -o /dev/null -q
# The same update handed only the new documents (--partial: what a batch of consumed
# documents gives), from a copy of the same index.
rm -rf "$R/ix-partial"
cp -r "$R/ix-check" "$R/ix-partial"
tail -n "$NEW" "$R/all.ndjson" > "$R/new.ndjson"
t0=$(now)
"$BIN/pl-index" --index "$R/ix-partial" --partial "$R/new.ndjson" -o "$R/partial-groups.ndjson" -q
t1=$(now)
partial=$(secs "$t0" "$t1")
log "the same update from the $NEW new documents alone (--partial): $partial s"
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
if cmp -s <(sort "$R/partial-groups.ndjson") <(sort "$R/work/groups.ndjson"); then psame=yes; else psame=NO; fi
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
| index of $((base - CHECKS)) documents built from scratch$build_note | $build s | |
| pl-check per document, p50: one process per document, wall (pl-check's own time) | $p50 ms ($o50 ms) | ≤ 20 ms |
| pl-check per document, p99 | $p99 ms ($o99 ms) | ≤ 100 ms |
| pl-check per document, slowest | $pmax ms ($omax ms) | |
| documents checked with a near-duplicate (exit 3) | $found of $CHECKS | |
| incremental run after $NEW new documents ($base → $total): DOCS the whole library | $incr s | ≤ 2 s |
| the same update, DOCS the $NEW new documents alone (\`--partial\`) | $partial s | ≤ 0.5 s at 100,000 |
| full pipeline on the same $total documents (\`make groups\`)$full_note | $full s | |
| groups of the incremental run identical to the full run's ($groups groups) | $same | identical |
| groups of the \`--partial\` run identical to the full run's | $psame | identical |
| index on disk | $(mib "$ix") MiB | |
| whole-text signatures (sigs.bin) + norm texts (norm.ndjson) | $(mib $((sigs + norm))) MiB | |
| index / (2 × signatures + norm texts) | $(ratio "$ix" $((2 * sigs + norm))) | ≤ 1 |
| index / (2 × all three signature streams + norm texts) | $(ratio "$ix" $((2 * (sigs + edges) + norm))) | |

The incremental run's own account: \`$(tail -1 "$R/incremental.log" | sed 's/^pl-index: //')\`
MD
python3 scripts/splice.py BENCH.md "index-$N" "$W/index/summary.md"
log "spliced into BENCH.md"
