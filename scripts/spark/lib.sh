# Sourced by test.sh and cluster_test.sh, which set W, BIN, LIMIT and log().

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
