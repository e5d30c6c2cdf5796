#!/usr/bin/env bash
# The benchmark of issue 6: our stages and pipeline against datasketch, rensa and gaoya on the
# same generated corpus with the same parameters, plus the exact baseline on the smallest corpus;
# writes BENCH.md. Run from the repository root: `make bench` (or scripts/bench/run.sh).
#
#   BENCH_SIZES="10000 100000"   corpus sizes in documents (default 10000; 1000000 works too);
#                                `real` adds the real-text corpus (scripts/bench/real_corpus.py:
#                                man pages, /usr/share/doc, licences of this machine)
#   BENCH_REPEAT=3               best of up to 3 runs for runs under 5 s
#   BENCH_THREADS="1 2"          thread counts for our tools (RAYON_NUM_THREADS and --threads)
#   BENCH_PEERS_MAX=100000       peers (datasketch, rensa, gaoya) only on corpora up to this many
#                                documents (datasketch alone would take ~30 min on 1,000,000)
#   BENCH_OUT=BENCH.md           where the report goes
#   BENCH_SPLICE=1               replace only the measured corpora's sections of an existing
#                                BENCH_OUT (scripts/bench/splice_sections.py)
#   BENCH_DEFAULT_REAL=1         the default pipeline's rows on the real-text corpus too
#   BENCH_WORK=work/bench        venv, corpora, outputs, timings (git-ignored)
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
cd "$(dirname "$0")/../.."

SIZES=${BENCH_SIZES:-10000}
THREADS=${BENCH_THREADS:-1 2}
PEERS_MAX=${BENCH_PEERS_MAX:-100000}
OUT=${BENCH_OUT:-BENCH.md}
W=${BENCH_WORK:-work/bench}
BIN=target/release
UNIT=words NGRAM=3 PERMS=256 BANDS=32 SEED=42 MIN_WORDS=20 THRESHOLD=0.75
# The default pipeline's rows (the Makefile's defaults), on corpora up to BENCH_DEFAULT_MAX.
EDGE_WORDS=60 DEFAULT_MAX=${BENCH_DEFAULT_MAX:-100000}
mkdir -p "$W"
RESULTS=$W/results.tsv
: > "$RESULTS"
log() { echo "bench: $*" >&2; }

# 1. release binaries
log "building release binaries"
cargo build --release --quiet -p pl-cli
cargo build --release --quiet -p pl-core --example kernels
KERNELS=$W/kernels.tsv
: > "$KERNELS"
# what was built, recorded now: others may commit while the benchmark runs
BUILT_COMMIT="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates Cargo.toml Cargo.lock 2>/dev/null || echo ' + uncommitted changes in crates/')"
BUILT_VERSION=$($BIN/pl-lsh --version)

# 2. /usr/bin/time (GNU time, for peak RSS) and the peers' venv, versions pinned
if [ ! -x /usr/bin/time ]; then
  log "installing GNU time"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq time
  else sudo apt-get update -qq && sudo apt-get install -y -qq time; fi
fi
VENV=$W/venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PY=$VENV/bin/python
log "installing peers into $VENV"
"$PY" -m pip install -q --disable-pip-version-check -r scripts/bench/requirements.txt
# gaoya only from a prebuilt wheel and within two minutes; left out of the tables otherwise.
PEERS="datasketch rensa"
if timeout 120 "$PY" -m pip install -q --disable-pip-version-check --only-binary=:all: gaoya==0.2.2 \
     >"$W/gaoya-install.log" 2>&1; then
  PEERS="$PEERS gaoya"
else
  log "gaoya did not install (see $W/gaoya-install.log): left out"
fi

# measure SIZE_DIR LABEL THREADS CANDS -- command...: wall time (ns clock), peak RSS (GNU
# time; for a pipe, the largest single process) and CPU time (user + system of every process,
# from GNU time), one line in results.tsv. A run shorter than 5 s is repeated up to
# BENCH_REPEAT times (default 3) and the best wall time kept (with that run's CPU time), to
# damp the noise of a shared machine; the line records how many runs there were.
REPEAT=${BENCH_REPEAT:-3}
measure() {
  local dir=$1 label=$2 threads=$3 cands=$4; shift 5
  local tf; tf=$(mktemp)
  local best=0 peak=0 runs=0 cpu=0 t0 t1 us rss
  while :; do
    log "  $label (threads $threads)"
    t0=$(date +%s%N)
    RAYON_NUM_THREADS=$threads /usr/bin/time -v -o "$tf" "$@"
    t1=$(date +%s%N)
    us=$(( (t1 - t0) / 1000 )); runs=$((runs + 1))
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tf")
    if [ "$best" = 0 ] || [ "$us" -lt "$best" ]; then
      best=$us
      cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%d", s * 1000000}' "$tf")
    fi
    if [ "$rss" -gt "$peak" ]; then peak=$rss; fi
    if [ "$runs" -ge "$REPEAT" ] || [ "$us" -ge 5000000 ]; then break; fi
  done
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dir" "$label" "$threads" "$best" "$peak" "$cands" \
    "$runs" "$cpu" >> "$RESULTS"
  rm -f "$tf"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
smallest=$(printf '%s\n' $SIZES | { grep -x '[0-9]*' || true; } | sort -n | head -n1)
for n in $SIZES; do
  D=$W/n$n
  if [ "$n" = real ]; then
    D=$W/real
    mkdir -p "$D"
    [ -s "$D/docs.ndjson" ] || python3 scripts/bench/real_corpus.py --out "$D/docs.ndjson"
  fi
  mkdir -p "$D"
  if [ ! -s "$D/docs.ndjson" ]; then
    log "corpus of $n documents"
    python3 scripts/gen_corpus --docs "$n" --seed 1 --out-docs "$D/docs.ndjson.tmp" \
      --out-truth "$D/truth.ndjson"
    mv "$D/docs.ndjson.tmp" "$D/docs.ndjson"
  fi
  # The real-text corpus is compared by its number of documents; its default pipeline (pl-score
  # on tens of millions of candidates there, see the issue notes) only with BENCH_DEFAULT_REAL=1.
  docs_n=$n
  if [ "$n" = real ]; then
    docs_n=$(wc -l < "$D/docs.ndjson")
    [ "${BENCH_DEFAULT_REAL:-0}" = 1 ] || docs_n_default=skip
  fi
  log "corpus $n: ours"
  for t in $THREADS; do
    T="--threads $t"
    measure "$D" "pl-normalize" "$t" - -- $BIN/pl-normalize $T -q "$D/docs.ndjson" -o "$D/norm.ndjson"
    measure "$D" "pl-shingle" "$t" - -- $BIN/pl-shingle $T -q "$D/norm.ndjson" --unit $UNIT --ngram $NGRAM \
      --min-words $MIN_WORDS -o "$D/shingles.bin"
    measure "$D" "pl-minhash" "$t" - -- $BIN/pl-minhash $T -q "$D/shingles.bin" --unit $UNIT --ngram $NGRAM \
      --perms $PERMS --seed $SEED -o "$D/sigs.bin"
    measure "$D" "pl-minhash oph" "$t" - -- $BIN/pl-minhash $T -q "$D/shingles.bin" --unit $UNIT --ngram $NGRAM \
      --perms $PERMS --seed $SEED --scheme oph -o "$D/sigs-oph.bin"
    # pl-minhash shingling the normalized documents itself (the same bytes as the two above)
    measure "$D" "pl-minhash from norm" "$t" - -- $BIN/pl-minhash $T -q "$D/norm.ndjson" \
      --unit $UNIT --ngram $NGRAM --min-words $MIN_WORDS --perms $PERMS --seed $SEED -o "$D/sigs-fused.bin"
    measure "$D" "pl-minhash from norm oph" "$t" - -- $BIN/pl-minhash $T -q "$D/norm.ndjson" \
      --unit $UNIT --ngram $NGRAM --min-words $MIN_WORDS --perms $PERMS --seed $SEED --scheme oph \
      -o "$D/sigs-fused-oph.bin"
    cmp -s "$D/sigs.bin" "$D/sigs-fused.bin" || { log "sigs-fused.bin differs from sigs.bin"; exit 1; }
    measure "$D" "pl-lsh" "$t" "$D/cands.ndjson" -- $BIN/pl-lsh $T -q "$D/sigs.bin" --perms $PERMS \
      --bands $BANDS --min-band-matches 1 -o "$D/cands.ndjson"
    measure "$D" "pl-score" "$t" - -- $BIN/pl-score $T -q "$D/cands.ndjson" --sigs "$D/sigs.bin" \
      --norm "$D/norm.ndjson" --perms $PERMS --threshold $THRESHOLD -o "$D/scores.ndjson"
    measure "$D" "pl-cluster" "$t" - -- $BIN/pl-cluster -q "$D/scores.ndjson" \
      --docs "$D/norm.ndjson" -o "$D/groups.ndjson"
    SH="$BIN/pl-shingle $T -q --unit $UNIT --ngram $NGRAM --min-words $MIN_WORDS"
    MH="$BIN/pl-minhash $T -q --unit $UNIT --ngram $NGRAM --perms $PERMS --seed $SEED"
    LSH="$BIN/pl-lsh $T -q --perms $PERMS --bands $BANDS --min-band-matches 1"
    measure "$D" "pipe docs→cands" "$t" "$D/cands-pipe-$t.ndjson" -- sh -c \
      "$BIN/pl-normalize $T -q < '$D/docs.ndjson' | $SH | $MH | $LSH -o '$D/cands-pipe-$t.ndjson'"
    measure "$D" "pipe norm→cands" "$t" "$D/cands-npipe-$t.ndjson" -- sh -c \
      "$SH < '$D/norm.ndjson' | $MH | $LSH -o '$D/cands-npipe-$t.ndjson'"
    measure "$D" "pipe norm→cands oph" "$t" "$D/cands-opipe-$t.ndjson" -- sh -c \
      "$SH < '$D/norm.ndjson' | $MH --scheme oph | $LSH -o '$D/cands-opipe-$t.ndjson'"
    measure "$D" "pipe norm→cands fused" "$t" "$D/cands-fpipe-$t.ndjson" -- sh -c \
      "$MH --min-words $MIN_WORDS < '$D/norm.ndjson' | $LSH -o '$D/cands-fpipe-$t.ndjson'"
    measure "$D" "pipe norm→cands fused oph" "$t" "$D/cands-fopipe-$t.ndjson" -- sh -c \
      "$MH --min-words $MIN_WORDS --scheme oph < '$D/norm.ndjson' | $LSH -o '$D/cands-fopipe-$t.ndjson'"
  done
  # The default pipeline as `make groups` runs it (character 5-grams, head and tail sketches,
  # the pairs by numbers, the verifier), stage by stage with 2 threads: what users get, and what scoring costs.
  if [ "${docs_n_default:-}" != skip ] && [ "$docs_n" -le "$DEFAULT_MAX" ]; then
    log "corpus $n: the default pipeline"
    DF="--unit chars --ngram 5 --min-words $MIN_WORDS --perms $PERMS --seed $SEED"
    measure "$D" "default: pl-minhash, whole texts" 2 - -- $BIN/pl-minhash -q $DF "$D/norm.ndjson" \
      -o "$D/dsigs.bin"
    measure "$D" "default: pl-minhash, heads and tails" 2 - -- sh -c \
      "$BIN/pl-minhash -q $DF --part head:$EDGE_WORDS '$D/norm.ndjson' -o '$D/dheads.bin' \
       && $BIN/pl-minhash -q $DF --part tail:$EDGE_WORDS '$D/norm.ndjson' -o '$D/dtails.bin'"
    measure "$D" "default: pl-lsh" 2 "$D/dcands.ndjson" -- $BIN/pl-lsh -q "$D/dsigs.bin" \
      --also "$D/dheads.bin" --also "$D/dtails.bin" --numbers "$D/norm.ndjson" --bands $BANDS \
      -o "$D/dcands.ndjson"
    measure "$D" "default: pl-score" 2 - -- $BIN/pl-score -q "$D/dcands.ndjson" \
      --sigs "$D/dsigs.bin" --norm "$D/norm.ndjson" -o "$D/dscores.ndjson"
    measure "$D" "default: pl-cluster" 2 - -- $BIN/pl-cluster -q "$D/dscores.ndjson" \
      --docs "$D/norm.ndjson" -o "$D/dgroups.ndjson"
  fi
  docs_n_default=
  if [ "$docs_n" -gt "$PEERS_MAX" ]; then
    log "corpus $n: kernels (ours); peers left out above BENCH_PEERS_MAX=$PEERS_MAX documents"
    target/release/examples/kernels "$D/norm.ndjson" | sed "s|^|$D\t|" >> "$KERNELS"
    continue
  fi
  log "corpus $n: kernels (ours, then rensa's RMinHash.update, on the same shingles)"
  target/release/examples/kernels "$D/norm.ndjson" | sed "s|^|$D\t|" >> "$KERNELS"
  "$PY" scripts/bench/peers.py rensa-kernel "$D/norm.ndjson" | sed "s|^|$D\t|" >> "$KERNELS"
  log "corpus $n: peers"
  for p in $PEERS; do
    measure "$D" "$p" 1 "$D/cands-$p.ndjson" -- "$PY" scripts/bench/peers.py "$p" \
      "$D/norm.ndjson" "$D/cands-$p.ndjson"
  done
  if [ "$n" = "$smallest" ]; then
    log "corpus $n: exact baseline"
    measure "$D" "exact" 1 "$D/exact.ndjson" -- "$PY" scripts/bench/exact.py "$D/norm.ndjson" \
      "$D/exact.ndjson" $THRESHOLD
  fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "sizes=$SIZES"
  echo "threads=$THREADS"
  echo "peers=$PEERS"
  echo "peers_max=$PEERS_MAX"
  echo "load_start=$LOAD_START"
  echo "load_end=$LOAD_END"
  echo "rustc=$(rustc --version)"
  echo "python=$("$PY" --version 2>&1)"
  echo "commit=$BUILT_COMMIT (at build time)"
  echo "pl=$BUILT_VERSION"
  for p in datasketch rensa gaoya numpy; do
    echo "pkg_$p=$("$PY" -m pip show "$p" 2>/dev/null | awk '/^Version:/ {print $2}')"
  done
} > "$W/meta.txt"
python3 scripts/bench/report.py "$RESULTS" "$W/meta.txt" "$KERNELS" > "$OUT.tmp"
if [ -n "${BENCH_SPLICE:-}" ] && [ -s "$OUT" ]; then
  # Only the measured corpora's sections are replaced; the header keeps the full run.
  # Every setting that changes what is measured is named, so the line can be run again.
  extra=""
  [ "${BENCH_DEFAULT_REAL:-0}" = 1 ] && extra="$extra BENCH_DEFAULT_REAL=1"
  [ -n "${BENCH_DEFAULT_MAX:-}" ] && extra="$extra BENCH_DEFAULT_MAX=$BENCH_DEFAULT_MAX"
  [ -n "${BENCH_THREADS:-}" ] && extra="$extra BENCH_THREADS=\"$BENCH_THREADS\""
  [ -n "${BENCH_PEERS_MAX:-}" ] && extra="$extra BENCH_PEERS_MAX=$BENCH_PEERS_MAX"
  note="\`BENCH_SIZES=\"$SIZES\"$extra BENCH_SPLICE=1 make bench\`, $(date -u +%F), ours commit $BUILT_COMMIT, load average $LOAD_START at the start, $LOAD_END at the end"
  python3 scripts/bench/splice_sections.py "$OUT" "$OUT.tmp" "$note" > "$OUT.new"
  rm "$OUT.tmp"
  mv "$OUT.new" "$OUT"
  log "spliced the sections of $SIZES into $OUT"
  exit 0
fi
mv "$OUT.tmp" "$OUT"
log "wrote $OUT"
