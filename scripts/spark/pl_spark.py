"""pl-spark: the duplicate-finding pipeline on Apache Spark, with the groups `make groups` gives.

The per-document stages (pl-normalize, pl-shingle, pl-minhash) and the per-partition ones
(pl-lsh --emit band-keys, pl-lsh --from-keys --partial, pl-score, pl-cluster) are the project's
own binaries, run on each partition through the JVM's RDD.pipe (stage.sh says which). Spark
does only what is keyed: it groups band keys by bucket, adds up the pairs' band counts and the
corpus counts, joins documents to pairs, and finds connected components (large-star /
small-star) so that pl-cluster sees whole components. docs/SCALE.md has the design and costs.
"""

import argparse
import json
import os
import re
import shutil
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The pipeline's parameters, by pipeline.mk's names; their defaults are read from pipeline.mk.
PARAMS = ["NGRAM", "UNIT", "MIN_WORDS", "PERMS", "SEED", "SCHEME", "BANDS", "EDGE_WORDS",
          "MIN_BAND_MATCHES", "MAX_BUCKET", "THRESHOLD", "JACCARD_WEIGHT", "FUZZY_WEIGHT", "FUZZY_SAMPLE",
          "SCORE_FLAGS", "SHINGLE_FLAGS", "CLUSTER_FLAGS"]
TOOLS = ["pl-normalize", "pl-shingle", "pl-minhash", "pl-lsh", "pl-score", "pl-cluster"]


class Refused(Exception):
    """A one-line error for the user."""


def pipeline_defaults(path):
    """`NAME ?= value` lines of pipeline.mk."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([A-Z_]+)\s*\?=\s*(.*?)\s*$", line)
            if m:
                out[m.group(1)] = m.group(2)
    return out


def parameters(sets):
    """pipeline.mk's defaults, then the environment (as make reads it), then --set."""
    defaults = pipeline_defaults(os.path.join(ROOT, "pipeline.mk"))
    params = {}
    for name in PARAMS:
        if name not in defaults:
            raise Refused(f"pipeline.mk has no default for {name}")
        params[name] = os.environ.get(name, defaults[name])
    for s in sets:
        name, eq, value = s.partition("=")
        if not eq or name not in PARAMS:
            raise Refused(f"--set {s}: expected NAME=VALUE with NAME one of {', '.join(PARAMS)}")
        params[name] = value
    return params


def arguments(argv):
    p = argparse.ArgumentParser(
        prog="pl-spark",
        description="Find near-duplicate documents with Spark: DOCS (docs NDJSON, any path "
        "Spark reads) -> OUT/groups.ndjson as pl-cluster writes it, the groups `make groups` "
        "gives with the same parameters (pipeline.mk's, the environment's, or --set's).")
    p.add_argument("docs", metavar="DOCS")
    p.add_argument("out", metavar="OUT", help="output folder (created; groups.ndjson, "
                   "scores.ndjson, stages.json)")
    p.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[2]"),
                   help="Spark master (default local[2], or SPARK_MASTER)")
    p.add_argument("--partitions", type=int, default=0,
                   help="partitions per stage (default: 4 per core Spark has)")
    p.add_argument("--bin", default=os.environ.get("PL_BIN", os.path.join(ROOT, "target", "release")),
                   help="folder of the pl-* tools, shipped with the job (default target/release)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a pipeline parameter, as make takes it (THRESHOLD=0.8); repeatable")
    p.add_argument("--big-bucket", type=int, default=2000, metavar="N",
                   help="buckets of more than N documents are expanded into pairs by a Spark "
                   "self-join split over tasks, not by one pl-lsh (default 2000)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p.parse_args(argv)


class Run:
    """One pl-spark run: the session, the shipped files and the stages' timings."""

    def __init__(self, args, params):
        from pyspark.sql import SparkSession

        self.args, self.params = args, params
        self.spark = (SparkSession.builder.master(args.master).appName("pl-spark")
                      .config("spark.ui.showConsoleProgress", "false")
                      .config("spark.sql.shuffle.partitions", "8")
                      .config("spark.driver.memory", os.environ.get("PL_SPARK_DRIVER_MEMORY", "4g"))
                      .getOrCreate())
        self.spark.sparkContext.setLogLevel("ERROR")
        sc = self.spark.sparkContext
        self.parts = args.partitions or 4 * sc.defaultParallelism
        self.spark.conf.set("spark.sql.shuffle.partitions", str(self.parts))
        for tool in TOOLS:
            path = os.path.join(args.bin, tool)
            if not os.access(path, os.X_OK):
                raise Refused(f"{path}: not found or not executable (build with "
                              "`cargo build --release -p pl-cli`, or give --bin)")
            sc.addFile(path)
        sc.addFile(os.path.join(HERE, "stage.sh"))
        from pyspark import SparkFiles
        # Executors fetch added files into their working folder; local mode's is the driver's.
        self.files = SparkFiles.getRootDirectory() if args.master.startswith("local") else "."
        self.env = dict(params, PL_BIN=self.files, RAYON_NUM_THREADS="1")
        self.timings = []

    def log(self, msg):
        if not self.args.quiet:
            print(f"pl-spark: {msg}", file=sys.stderr, flush=True)

    def stage(self, name, fn):
        """Runs one stage under its job description (the stage table groups by it)."""
        from py4j.protocol import Py4JJavaError

        self.spark.sparkContext.setJobDescription(name)
        t = time.time()
        try:
            out = fn()
        except Py4JJavaError as e:
            first = str(e.java_exception).splitlines()[0][:300]
            raise Refused(f"stage {name} failed (a tool's message, if any, is above): {first}") from None
        took = time.time() - t
        self.timings.append((name, took))
        self.log(f"{name}: {took:.1f} s")
        return out

    def pipe(self, df, stage, extra_env=None):
        """The lines of `df` (one string column) through `stage.sh STAGE` on each partition,
        by the JVM's RDD.pipe (the lines never pass through Python)."""
        from pyspark.sql import DataFrame

        jvm = self.spark.sparkContext._jvm
        strings = jvm.org.apache.spark.sql.Encoders.STRING()
        jrdd = getattr(df._jdf, "as")(strings).javaRDD()
        env = dict(self.env, **(extra_env or {}))
        cmd = ["bash", os.path.join(self.files, "stage.sh"), stage]
        piped = jrdd.pipe(cmd, env, False, 1 << 16, "UTF-8")
        jds = self.spark._jsparkSession.createDataset(piped.rdd(), strings)
        return DataFrame(jds.toDF(), self.spark)  # its one column is "value"


def write_lines(df, path, tmpdir):
    """Writes a one-column DataFrame of lines as one file (in the DataFrame's order)."""
    df.coalesce(1).write.mode("overwrite").text(tmpdir)
    parts = sorted(f for f in os.listdir(tmpdir) if f.startswith("part-"))
    with open(path + ".tmp", "wb") as out:
        for f in parts:
            with open(os.path.join(tmpdir, f), "rb") as src:
                shutil.copyfileobj(src, out)
    os.replace(path + ".tmp", path)
    shutil.rmtree(tmpdir)


def components(run, edges):
    """Connected components of an undirected graph (columns u, v) by large-star / small-star
    (Kiveris et al., 2014): each node with the smallest node of its component, `comp`."""
    from pyspark.sql import functions as F

    e = edges.select(F.least("u", "v").alias("u"), F.greatest("u", "v").alias("v")).distinct()
    rounds = 0
    while True:
        rounds += 1
        # Large star: every neighbor larger than u links to the smallest of u's neighborhood.
        both = e.union(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        m = both.groupBy("u").agg(F.least(F.min("v"), F.first("u")).alias("m"))
        large = (both.join(m, "u").where(F.col("v") > F.col("u"))
                 .select(F.col("v").alias("u"), F.col("m").alias("v")).distinct())
        # Small star: u and its smaller neighbors link to the smallest of them.
        d = large.select(F.greatest("u", "v").alias("u"), F.least("u", "v").alias("v"))
        m = d.groupBy("u").agg(F.min("v").alias("m"))
        small = (d.join(m, "u").select(F.col("v").alias("u"), F.col("m").alias("v"))
                 .union(m.select("u", F.col("m").alias("v")))
                 .where(F.col("u") != F.col("v")).distinct()).localCheckpoint()
        changed = small.exceptAll(e).limit(1).count() + e.exceptAll(small).limit(1).count()
        e = small
        if changed == 0:
            break
    run.log(f"components: {rounds} rounds of large-star/small-star")
    # Converged: every edge is (node, its component's smallest node).
    nodes = e.select(F.col("u").alias("id"), F.col("v").alias("comp"))
    roots = e.select(F.col("v").alias("id"), F.col("v").alias("comp")).distinct()
    return nodes.union(roots)


def main(argv):
    args = arguments(argv)
    params = parameters(args.set)
    run = Run(args, params)

    # Every output is written into a fresh attempt folder and published into OUT only once
    # the run has succeeded (publish), so OUT holds the last complete result or nothing new.
    os.makedirs(args.out, exist_ok=True)
    attempt = os.path.join(args.out, f".attempt-{os.getpid()}")
    shutil.rmtree(attempt, ignore_errors=True)
    try:
        os.mkdir(attempt)
    except OSError as e:
        raise Refused(f"{attempt}: cannot create the attempt folder: {e.strerror}") from None
    try:
        stages(run, args, params, attempt)
    finally:
        shutil.rmtree(attempt, ignore_errors=True)
    run.spark.stop()


def checked_input(run, path):
    """DOCS as Spark reads it, refused as pl-normalize refuses it when a line is not UTF-8 or
    not JSON: one line naming the file and its line number, found by Spark (no line passes
    through the driver; only one count per partition does, and only when a line is bad)."""
    from pyspark.sql import functions as F

    raw = run.spark.read.text(path)
    # Spark keeps a line's bytes as read; decoding and encoding again changes them exactly
    # when they are not UTF-8 (a U+FFFD of the input survives the round trip).
    data = F.col("value").cast("binary")
    not_utf8 = F.encode(F.decode(data, "UTF-8"), "UTF-8") != data
    not_json = F.get_json_object("value", "$").isNull()
    why = F.when(not_utf8, F.lit("not UTF-8 text")).when(not_json, F.lit("invalid JSON"))
    lines = raw.select(F.input_file_name().alias("file"), F.spark_partition_id().alias("part"),
                       F.monotonically_increasing_id().alias("row"), why.alias("why"))
    if lines.where(F.col("why").isNotNull()).limit(1).count() == 0:
        return raw
    # A file's lines are read in order, split by split in partition order: a line's number is
    # the lines of the same file in earlier partitions plus its place in its own.
    lines = lines.persist()
    spans = {(r["file"], r["part"]): (r["n"], r["first"]) for r in lines.groupBy("file", "part").agg(
        F.count(F.lit(1)).alias("n"), F.min("row").alias("first")).collect()}
    bad = [(r["file"], r["part"], r["row"], r["why"]) for r in lines.where(F.col("why").isNotNull())
           .groupBy("file", "part").agg(F.min(F.struct("row", "why")).alias("m"))
           .select("file", "part", "m.row", "m.why").collect()]

    def number(file, part, row):
        before = sum(n for (f, p), (n, _) in spans.items() if f == file and p < part)
        return before + row - spans[(file, part)][1] + 1

    file, part, row, why = min(bad, key=lambda b: (b[0], number(*b[:3])))
    # A local file by its path, any other by its URI.
    shown = urllib.parse.unquote(urllib.parse.urlparse(file).path) if file.startswith("file:") else file
    raise Refused(f"{shown}: line {number(file, part, row)}: {why}")


def publish(attempt, out, names):
    """Moves the attempt's files into OUT, then marks OUT complete with _SUCCESS (removed first,
    so a reader never takes a half-published OUT for a result)."""
    done = os.path.join(out, "_SUCCESS")
    if os.path.lexists(done):
        os.remove(done)
    for name in names:
        os.replace(os.path.join(attempt, name), os.path.join(out, name))
    with open(os.path.join(attempt, "_SUCCESS"), "w", encoding="utf-8"):
        pass
    os.replace(os.path.join(attempt, "_SUCCESS"), done)


OUTPUTS = ["groups.ndjson", "scores.ndjson", "corpus-counts.ndjson", "stages.json"]


def stages(run, args, params, folder):
    """The pipeline's stages, every output written into `folder`; then published."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    final = args.out
    tmp = os.path.join(folder, ".tmp")
    n_bands = int(params["BANDS"])

    # Normalize: per document.
    def normalize():
        docs = checked_input(run, args.docs).repartition(run.parts)
        norm = run.pipe(docs, "normalize")
        norm = norm.select(F.get_json_object("value", "$.id").alias("ids"), "value")
        norm = norm.select(F.col("ids").cast("long").alias("id"), "value").persist()
        bad = norm.where(F.col("id").isNull()).select("value").limit(1).collect()
        if bad:
            raise Refused(f"{args.docs}: a document id over 2^63-1 (Spark's longest integer): {bad[0][0][:80]}")
        rep = norm.groupBy("id").count().where("count > 1").orderBy("id").limit(1).collect()
        if rep:
            raise Refused(f"{args.docs}: id {rep[0]['id']} repeated")
        n = norm.count()
        run.log(f"{n} documents normalized in {run.parts} partitions")
        return norm, n
    norm, n_docs = run.stage("normalize", normalize)
    if n_docs == 0:
        # No document, no pair, no group: empty outputs, as make gives.
        for name in ["groups.ndjson", "scores.ndjson", "corpus-counts.ndjson"]:
            open(os.path.join(folder, name), "wb").close()
        write_stages(run, os.path.join(folder, "stages.json"), n_docs)
        publish(folder, final, OUTPUTS)
        return

    # Band keys, copy keys and corpus counts: per partition of documents.
    schema = T.StructType([T.StructField(k, t) for k, t in [
        ("sketch", T.IntegerType()), ("band", T.IntegerType()), ("key", T.StringType()),
        ("copy", T.StringType()), ("id", T.LongType()), ("token", T.StringType()),
        ("word", T.StringType()), ("documents", T.LongType()), ("max_words", T.LongType())]])

    def keys():
        rows = run.pipe(norm.select("value"), "keys").select(F.from_json("value", schema).alias("r")).select("r.*")
        rows = rows.persist()
        run.log(f"{rows.count()} band-key and count rows")
        return rows
    rows = run.stage("keys", keys)

    def counts():
        head = rows.where(F.col("documents").isNotNull() & F.col("token").isNull() & F.col("word").isNull())
        h = head.agg(F.sum("documents").alias("n"), F.countDistinct("max_words").alias("mw_kinds"),
                     F.max("max_words").alias("mw"), F.count(F.lit(1)).alias("parts")).collect()[0]
        if h["mw_kinds"] > 1:
            raise Refused("partitions counted words with different --max-words")
        header = {"documents": int(h["n"])}
        if h["mw"] is not None:
            header["max_words"] = int(h["mw"])
        entries = (rows.where(F.col("token").isNotNull() | F.col("word").isNotNull())
                   .groupBy("token", "word").agg(F.sum("documents").alias("documents"))
                   .where("documents >= 2").orderBy("token", "word")
                   .select(F.to_json(F.struct("token", "word", "documents")).alias("value")))
        path = os.path.join(folder, "corpus-counts.ndjson")
        write_lines(entries, path + ".entries", tmp)
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps(header, separators=(",", ":")) + "\n")
            with open(path + ".entries", encoding="utf-8") as src:
                shutil.copyfileobj(src, out)
        os.remove(path + ".entries")
        run.spark.sparkContext.addFile(path)
        return path
    counts_path = run.stage("corpus counts", counts)

    # Candidates: buckets grouped by Spark, their pairs by pl-lsh --from-keys --partial.
    def candidates():
        copy = (rows.where(F.col("copy").isNotNull()).groupBy("copy")
                .agg(F.min("id").alias("rep"), F.collect_list("id").alias("ids"))
                .where(F.size("ids") >= 2))
        members = (copy.select("rep", F.explode("ids").alias("id")).where(F.col("id") != F.col("rep"))
                   .persist())
        banded = rows.where(F.col("band").isNotNull()).join(members.select("id"), "id", "left_anti")
        # Buckets are sized before any is gathered: one over MAX_BUCKET (boilerplate, pl-lsh
        # --max-bucket) is dropped, one over --big-bucket is expanded by a self-join, and only
        # the rest become one row each, so no row holds a bucket of more than --big-bucket ids.
        bucket = ["sketch", "band", "key"]
        sizes = banded.groupBy(*bucket).agg(F.count(F.lit(1)).alias("size")).where("size >= 2")
        cap = int(params["MAX_BUCKET"])
        if cap > 0:
            sizes = sizes.where(F.col("size") <= cap)
        sized = banded.join(sizes, bucket).persist()
        big = args.big_bucket
        largest = sizes.agg(F.max("size").alias("m")).collect()[0]["m"] or 0
        run.log(f"the largest bucket holds {largest} documents ({largest * (largest - 1) // 2} pairs)")
        small = (sized.where(F.col("size") <= big).groupBy(*bucket)
                 .agg(F.sort_array(F.collect_list("id")).alias("ids"))
                 .select(F.to_json(F.struct("sketch", "band", "key", "ids")).alias("value")))
        pair_schema = "a long, b long, sketch int, bands long"
        partial = run.pipe(small, "from-keys").select(F.from_json("value", pair_schema).alias("p")).select("p.*")
        # A bucket of k documents makes k(k-1)/2 pairs: one over --big-bucket is expanded by a
        # self-join instead, which Spark's adaptive skew handling splits over many tasks.
        members_big = sized.where(F.col("size") > big).select(*bucket, "id")
        x, y = members_big.alias("x"), members_big.alias("y")
        expanded = (x.join(y, bucket).where(F.col("x.id") < F.col("y.id"))
                    .groupBy(F.col("x.id").alias("a"), F.col("y.id").alias("b"), "sketch")
                    .agg(F.count(F.lit(1)).alias("bands")))
        partial = partial.unionByName(expanded)
        pairs = (partial.groupBy("a", "b", "sketch").agg(F.sum("bands").alias("bands"))
                 .where(F.col("bands") >= int(params["MIN_BAND_MATCHES"]))
                 .groupBy("a", "b").agg(F.max("bands").alias("bands")).withColumn("copy", F.lit(False)))
        copies = members.select(F.col("rep").alias("a"), F.col("id").alias("b"),
                                F.lit(n_bands).cast("long").alias("bands"), F.lit(True).alias("copy"))
        cands = pairs.join(copies.select("a", "b"), ["a", "b"], "left_anti").unionByName(copies)
        # pl-lsh's line: {"a","b","bands"} and "copy":true on a copy pair.
        line = F.concat(F.lit('{"a":'), F.col("a").cast("string"), F.lit(',"b":'), F.col("b").cast("string"),
                        F.lit(',"bands":'), F.col("bands").cast("string"),
                        F.when(F.col("copy"), F.lit(',"copy":true}')).otherwise(F.lit("}")))
        cands = cands.select("a", "b", line.alias("line")).persist()
        run.log(f"{cands.count()} candidate pairs")
        return cands
    cands = run.stage("candidates", candidates)

    # Scores: documents hashed into C chunks and a pair sent to the partition of its two
    # chunks, so a document is joined to at most C partitions (C(C+1)/2 ~ the partitions), not
    # to every one, as hashing pairs would; each partition gets its documents joined.
    def scores():
        chunks = max(1, int(((8 * run.parts + 1) ** 0.5 - 1) / 2))
        ca = F.pmod(F.xxhash64("a"), F.lit(chunks))
        cb = F.pmod(F.xxhash64("b"), F.lit(chunks))
        pid = (F.least(ca, cb) * chunks + F.greatest(ca, cb)).alias("pid")
        tagged = cands.select(pid, "a", "b", "line")
        need = tagged.select("pid", F.col("a").alias("id")).union(tagged.select("pid", F.col("b").alias("id"))).distinct()
        docs = need.join(norm, "id").select("pid", F.concat(F.lit("N\t"), "value").alias("value"))
        pairs = tagged.select("pid", F.concat(F.lit("P\t"), "line").alias("value"))
        lines = docs.unionByName(pairs).repartition(run.parts, "pid").select("value")
        env = {"PL_COUNTS": os.path.join(run.files, "corpus-counts.ndjson")}
        out = run.pipe(lines, "score", env)
        out = out.select(F.get_json_object("value", "$.a").cast("long").alias("a"),
                         F.get_json_object("value", "$.b").cast("long").alias("b"), "value").persist()
        write_lines(out.orderBy("a", "b").select("value"), os.path.join(folder, "scores.ndjson"), tmp)
        run.log(f"{out.count()} scored pairs kept")
        return out
    scored = run.stage("score", scores)

    # Groups: connected components in Spark, pl-cluster on whole components, one numbering.
    def groups():
        comp = components(run, scored.select(F.col("a").alias("u"), F.col("b").alias("v"))).persist()
        sizes = comp.groupBy("comp").count()
        big = sizes.agg(F.max("count").alias("m"), F.count(F.lit(1)).alias("n")).collect()[0]
        run.log(f"{big['n'] or 0} components, the largest of {big['m'] or 0} documents")
        s = scored.join(comp.withColumnRenamed("id", "a"), "a").select(
            "comp", F.concat(F.lit("S\t"), "value").alias("value"))
        d = comp.join(norm, "id").select("comp", F.concat(F.lit("D\t"), "value").alias("value"))
        lines = s.unionByName(d).repartition(run.parts, "comp").select("value")
        grouped = run.pipe(lines, "cluster").collect()
        path = os.path.join(folder, "groups.ndjson")
        import subprocess
        res = subprocess.run([os.path.join(args.bin, "pl-cluster"), "-q", "--renumber", "-o", path],
                             input="".join(r["value"] + "\n" for r in grouped).encode(), check=False)
        if res.returncode != 0:
            raise Refused("pl-cluster --renumber failed (its message is above)")
        run.log(f"{len(grouped)} groups -> {path}")
    run.stage("groups", groups)

    write_stages(run, os.path.join(folder, "stages.json"), n_docs)
    publish(folder, final, OUTPUTS)


def write_stages(run, path, n_docs):
    """Wall time and shuffle bytes of each pl-spark stage, from Spark's status API."""
    sc = run.spark.sparkContext
    shuffle = {}
    try:
        url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages?status=complete"
        with urllib.request.urlopen(url, timeout=30) as r:
            for s in json.load(r):
                name = s.get("description") or "other"
                acc = shuffle.setdefault(name, [0, 0])
                acc[0] += s.get("shuffleWriteBytes", 0)
                acc[1] += s.get("shuffleReadBytes", 0)
    except OSError as e:
        run.log(f"no shuffle figures (Spark's status API: {e})")
    stages = [{"stage": name, "seconds": round(took, 2),
               "shuffle_write_bytes": shuffle.get(name, [0, 0])[0],
               "shuffle_read_bytes": shuffle.get(name, [0, 0])[1]} for name, took in run.timings]
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"master": run.args.master, "partitions": run.parts, "documents": n_docs,
                   "stages": stages}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Refused as e:
        print(f"pl-spark: {e}", file=sys.stderr)
        sys.exit(1)
