"""pl-spark: the duplicate-finding pipeline on Apache Spark, with the groups `make groups` gives.

The per-document stages (pl-normalize, pl-minhash shingling the text itself) and the
per-partition ones (pl-lsh --emit band-keys, pl-lsh --from-keys --partial, pl-score,
pl-cluster) are the project's own binaries, run on each partition through the JVM's RDD.pipe
(stage.sh says which). Spark
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
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The pipeline's parameters, by pipeline.mk's names; their defaults are read from pipeline.mk.
PARAMS = ["NGRAM", "UNIT", "MIN_WORDS", "PERMS", "SEED", "SCHEME", "BANDS", "EDGE_WORDS", "NUMBERS",
          "MIN_BAND_MATCHES", "MAX_BUCKET", "EVIDENCE_BUCKET", "THRESHOLD", "MIN_SIMILARITY", "JACCARD_WEIGHT", "FUZZY_WEIGHT", "FUZZY_SAMPLE",
          "MAX_WORDS", "SCORE_FLAGS", "SHINGLE_FLAGS", "CLUSTER_FLAGS"]
TOOLS = ["pl-normalize", "pl-minhash", "pl-lsh", "pl-score", "pl-cluster"]


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


def band_rule(bin_dir, params):
    """pl-lsh's band rule for these parameters (`pl-lsh --print-rule`): the flags, the evidence
    unit a bucket of n documents weighs `unit div (n - 1)` of (at least 1, whole numbers so
    that sums are exact in any order), the evidence a pair needs, and the numbers' rule. Read
    from the binary, so that Spark's DataFrames apply the rule pl-lsh applies."""
    import subprocess

    cmd = [os.path.join(bin_dir, "pl-lsh"), "--print-rule", "--bands", params["BANDS"],
           "--min-band-matches", params["MIN_BAND_MATCHES"], "--max-bucket", params["MAX_BUCKET"],
           "--evidence-bucket", params["EVIDENCE_BUCKET"]]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        why = lines[0] if lines else f"failed ({p.returncode})"
        raise Refused(f"the band rule of BANDS, MIN_BAND_MATCHES, MAX_BUCKET and EVIDENCE_BUCKET: pl-lsh: {why}")
    return json.loads(p.stdout)


def arguments(argv):
    p = argparse.ArgumentParser(
        prog="pl-spark",
        description="Find near-duplicate documents with Spark: DOCS (docs NDJSON, any path "
        "Spark reads) -> OUT/groups/part-* which, read in name order, are the groups `make groups` "
        "gives with the same parameters (pipeline.mk's, the environment's, or --set's).")
    p.add_argument("docs", metavar="DOCS")
    p.add_argument("out", metavar="OUT", help="output folder, a path or a URI on any Hadoop "
                   "filesystem (created; groups/ and scores/, each a folder of part files to be "
                   "read in name order, stages.json, and _SUCCESS once complete)")
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
    p.add_argument("--publish-wait", type=float, default=600, metavar="SECONDS",
                   help="how long to wait while another run publishes into OUT before "
                   "refusing (default 600)")
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
        self.rule = band_rule(args.bin, params)
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

    # Every output is written by Spark into a fresh attempt folder on OUT's filesystem and
    # published into OUT only once the run has succeeded, so OUT holds the last complete
    # result or nothing new.
    out = Output(run, args.out, args.publish_wait)
    local = tempfile.mkdtemp(prefix="pl-spark-")
    try:
        n_docs = stages(run, args, params, out, local)
        out.write_text("stages.json", stages_json(run, n_docs))
        out.publish(OUTPUTS)
    finally:
        out.discard()
        shutil.rmtree(local, ignore_errors=True)
    run.spark.stop()


class Output:
    """OUT on any Hadoop filesystem (a path or a URI: file://, hdfs://, s3a://), through the
    JVM's FileSystem API: the attempt folder the stages write into, and its publication."""

    def __init__(self, run, out, wait):
        self.run, self.wait = run, wait
        sc = run.spark.sparkContext
        jvm = sc._jvm
        self.Path = jvm.org.apache.hadoop.fs.Path
        uri = out if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", out) else "file://" + os.path.abspath(out)
        self.out = self.Path(uri)
        self.fs = self.out.getFileSystem(sc._jsc.hadoopConfiguration())
        self.fs.mkdirs(self.out)
        self.attempt = self.Path(self.out, f".attempt-{sc.applicationId}")
        if self.fs.exists(self.attempt):
            raise Refused(f"{shown(self.attempt.toString())}: already there (another run of this application?)")
        self.fs.mkdirs(self.attempt)

    def uri(self, name):
        """Where an output of the attempt is written."""
        return self.Path(self.attempt, name).toString()

    def write_text(self, name, text):
        """A small file of the attempt, written by the driver (stages.json)."""
        stream = self.fs.create(self.Path(self.attempt, name), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def publish(self, names):
        """Moves the attempt's outputs into OUT, then marks OUT complete with _SUCCESS (removed
        first, so a reader never takes a half-published OUT for a result). Two runs publishing
        into one OUT take turns: the lock, OUT/.publishing, is created only when absent, so OUT
        never mixes one run's groups with another's scores. A lock still there after `wait`
        seconds (a killed run's) is refused."""
        lock = self.Path(self.out, ".publishing")
        deadline = time.monotonic() + self.wait
        waited = False
        while not self.create_new(lock):
            if time.monotonic() > deadline:
                raise Refused(f"{shown(lock.toString())}: another run is publishing into OUT "
                              f"(waited {self.wait} s; remove it if no run is)")
            if not waited:
                self.run.log(f"waiting for {shown(lock.toString())}: another run is publishing")
                waited = True
            time.sleep(0.2)
        try:
            done = self.Path(self.out, "_SUCCESS")
            self.remove(done)
            for name in names:
                target = self.Path(self.out, name)
                self.remove(target)
                if not self.fs.rename(self.Path(self.attempt, name), target):
                    raise Refused(f"{shown(target.toString())}: could not be published")
            self.fs.create(done, True).close()
        finally:
            self.fs.delete(lock, False)

    def create_new(self, path):
        """Creates an empty file at `path` unless something stands there (a symlink too, never
        followed); whether it did. One atomic call on a local disk (O_EXCL) and on HDFS."""
        uri = path.toUri()
        if uri.getScheme() == "file":
            try:
                os.close(os.open(uri.getPath(), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                return True
            except FileExistsError:
                return False
        try:
            self.fs.create(path, False).close()
            return True
        except Exception as e:  # the JVM's FileAlreadyExistsException
            if "AlreadyExists" in str(e) or self.fs.exists(path):
                return False
            raise

    def remove(self, path):
        """Removes what stands at `path`. A symlink is removed itself, never followed, dangling
        or not (Hadoop's local filesystem follows links, so it sees a dangling one as absent
        and cannot remove it); anything else through the filesystem."""
        uri = path.toUri()
        if uri.getScheme() == "file" and os.path.islink(uri.getPath()):
            os.unlink(uri.getPath())
        else:
            self.fs.delete(path, True)

    def discard(self):
        self.fs.delete(self.attempt, True)


def shown(uri):
    """A local file by its path, any other by its URI."""
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path) if uri.startswith("file:") else uri


def offsets(spans):
    """Rows read partition by partition, numbered from 0 within each key (a file, or one
    sequence): `spans` maps (key, partition) to its (rows, first monotonically_increasing_id);
    the result maps it to what to add to a row's id for its place. Only these counts, one per
    partition, reach the driver."""
    shift, before = {}, {}
    for key, part in sorted(spans):
        rows, first = spans[(key, part)]
        shift[(key, part)] = before.get(key, 0) - first
        before[key] = before.get(key, 0) + rows
    return shift


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
    # A blank line is skipped, as pl-normalize skips it.
    not_json = F.get_json_object("value", "$").isNull() & ~F.col("value").rlike(r"^\s*$")
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

    shift = offsets(spans)

    def number(file, part, row):
        return row + shift[(file, part)] + 1

    file, part, row, why = min(bad, key=lambda b: (b[0], number(*b[:3])))
    raise Refused(f"{shown(file)}: line {number(file, part, row)}: {why}")


# What a run publishes in OUT: folders of part files (read in name order) and stages.json.
OUTPUTS = ["groups", "scores", "stages.json"]


def stages(run, args, params, out, local):
    """The pipeline's stages, every output written into `out`'s attempt folder; `local`, a
    folder of the driver, holds the corpus counts shipped to tasks. Returns the documents'
    count."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    n_bands = int(params["BANDS"])
    rule = run.rule

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
        empty = run.spark.createDataFrame([], "value string")
        for name in ["groups", "scores"]:
            empty.write.text(out.uri(name))
        return n_docs

    # Band keys, copy keys and corpus counts: per partition of documents.
    schema = T.StructType([T.StructField(k, t) for k, t in [
        ("sketch", T.IntegerType()), ("band", T.IntegerType()), ("key", T.StringType()),
        ("copy", T.StringType()), ("id", T.LongType()), ("token", T.StringType()),
        ("word", T.StringType()), ("text", T.StringType()), ("documents", T.LongType()),
        ("max_words", T.LongType()),
        ("number", T.StringType())]])

    def keys():
        rows = run.pipe(norm.select("value"), "keys").select(F.from_json("value", schema).alias("r")).select("r.*")
        rows = rows.persist()
        run.log(f"{rows.count()} band-key and count rows")
        return rows
    rows = run.stage("keys", keys)

    def counts():
        head = rows.where(F.col("documents").isNotNull() & F.col("token").isNull() & F.col("word").isNull()
                          & F.col("text").isNull())
        h = head.agg(F.sum("documents").alias("n"), F.countDistinct("max_words").alias("mw_kinds"),
                     F.max("max_words").alias("mw"), F.count(F.lit(1)).alias("parts")).collect()[0]
        if h["mw_kinds"] > 1:
            raise Refused("partitions counted words with different --max-words")
        header = {"documents": int(h["n"])}
        if h["mw"] is not None:
            header["max_words"] = int(h["mw"])
        # A text's documents add up over partitions as a word's do (every part counts each).
        entries = (rows.where(F.col("token").isNotNull() | F.col("word").isNotNull() | F.col("text").isNotNull())
                   .groupBy("token", "word", "text").agg(F.sum("documents").alias("documents"))
                   .where("documents >= 2").orderBy("token", "word", "text")
                   .select(F.to_json(F.struct("token", "word", "text", "documents")).alias("value")))
        # Shipped to every score task with addFile, so written by the driver: one partition
        # at a time passes through it (what it holds is a partition of the vocabulary).
        path = os.path.join(local, "corpus-counts.ndjson")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(header, separators=(",", ":")) + "\n")
            for r in entries.toLocalIterator():
                f.write(r["value"] + "\n")
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
        cap = rule["max_bucket"]
        if cap > 0:
            sizes = sizes.where(F.col("size") <= cap)
        sized = banded.join(sizes, bucket).persist()
        big = args.big_bucket
        largest = sizes.agg(F.max("size").alias("m")).collect()[0]["m"] or 0
        run.log(f"the largest bucket holds {largest} documents ({largest * (largest - 1) // 2} pairs)")
        small = (sized.where(F.col("size") <= big).groupBy(*bucket)
                 .agg(F.sort_array(F.collect_list("id")).alias("ids"))
                 .select(F.to_json(F.struct("sketch", "band", "key", "ids")).alias("value")))
        pair_schema = "a long, b long, sketch int, bands long, evidence long"
        partial = run.pipe(small, "from-keys").select(F.from_json("value", pair_schema).alias("p")).select("p.*")
        # A bucket of k documents makes k(k-1)/2 pairs: one over --big-bucket is expanded by a
        # self-join instead, which Spark's adaptive skew handling splits over many tasks.
        members_big = (sized.where(F.col("size") > big)
                       .withColumn("weight", F.expr(f"greatest(1, {rule['evidence_unit']} div (size - 1))"))
                       .select(*bucket, "id", "weight"))
        x, y = members_big.alias("x"), members_big.alias("y")
        expanded = (x.join(y, bucket).where(F.col("x.id") < F.col("y.id"))
                    .groupBy(F.col("x.id").alias("a"), F.col("y.id").alias("b"), "sketch")
                    .agg(F.count(F.lit(1)).alias("bands"), F.sum("x.weight").alias("evidence")))
        partial = partial.unionByName(expanded)
        # pl-lsh's rule: enough bands in a sketch, the most of any sketch kept, and the
        # evidence of those sketches summed must reach one bucket of EVIDENCE_BUCKET documents.
        every = (partial.groupBy("a", "b", "sketch")
                 .agg(F.sum("bands").alias("bands"), F.sum("evidence").alias("evidence"))
                 .where(F.col("bands") >= rule["min_band_matches"])
                 .groupBy("a", "b").agg(F.max("bands").alias("bands"), F.sum("evidence").alias("evidence")))
        pairs = (every.where(F.col("evidence") >= rule["needed"]).select("a", "b", "bands")
                 .withColumn("copy", F.lit(False)))
        if params["NUMBERS"] == "1":
            # pl-lsh --numbers: every document's numbers counted, the banded documents (whole
            # texts' band rows, copy members left out) sharing enough of the rare ones paired.
            nums = rows.where(F.col("number").isNotNull()).select("number", "id")
            rare = (nums.groupBy("number").agg(F.count(F.lit(1)).alias("n"))
                    .where((F.col("n") >= 2) & (F.col("n") <= rule["number_bucket"])).select("number"))
            whole = (rows.where((F.col("sketch") == 0) & F.col("band").isNotNull()).select("id").distinct()
                     .join(members.select("id"), "id", "left_anti"))
            held = nums.join(rare, "number").join(whole, "id")
            x, y = held.alias("x"), held.alias("y")
            by_numbers = (x.join(y, "number").where(F.col("x.id") < F.col("y.id"))
                          .groupBy(F.col("x.id").alias("a"), F.col("y.id").alias("b"))
                          .agg(F.count(F.lit(1)).alias("shared")).where(F.col("shared") >= rule["number_matches"])
                          .select("a", "b"))
            # The numbers need no evidence; a band's count wins, evident or not (pl-lsh's union).
            by_numbers = (by_numbers.join(pairs.select("a", "b"), ["a", "b"], "left_anti")
                          .join(every.select("a", "b", "bands"), ["a", "b"], "left")
                          .select("a", "b", F.coalesce(F.col("bands"), F.lit(0)).cast("long").alias("bands"),
                                  F.lit(False).alias("copy")))
            pairs = pairs.unionByName(by_numbers)
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
        # By range of pid, not by its hash: the C(C+1)/2 chunk pairs spread over the partitions
        # by their rows, so none is left empty while another gets two chunk pairs.
        lines = docs.unionByName(pairs).repartitionByRange(run.parts, "pid").select("value")
        env = {"PL_COUNTS": os.path.join(run.files, "corpus-counts.ndjson")}
        scored = run.pipe(lines, "score", env)
        # Kept pairs, and pairs held apart ({"a","b","apart":true}; every one, --apart-all).
        scored = scored.select(F.get_json_object("value", "$.a").cast("long").alias("a"),
                               F.get_json_object("value", "$.b").cast("long").alias("b"),
                               F.get_json_object("value", "$.apart").isNotNull().alias("apart"),
                               "value").persist()
        kept = scored.where(~F.col("apart")).count()
        run.log(f"{kept} scored pairs kept, {scored.count() - kept} held apart")
        return scored
    scored = run.stage("score", scores)

    # Groups: connected components in Spark, pl-cluster on whole components, one numbering.
    def groups():
        kept = scored.where(~F.col("apart"))
        comp = components(run, kept.select(F.col("a").alias("u"), F.col("b").alias("v"))).persist()
        sizes = comp.groupBy("comp").count()
        big = sizes.agg(F.max("count").alias("m"), F.count(F.lit(1)).alias("n")).collect()[0]
        run.log(f"{big['n'] or 0} components, the largest of {big['m'] or 0} documents")
        # pl-score's output over all the candidates: the kept pairs in candidate order (a, b),
        # then the pairs held apart inside one component, sorted.
        ca, cb = comp.withColumnRenamed("id", "a"), comp.select(F.col("id").alias("b"), F.col("comp").alias("comp_b"))
        apart = (scored.where(F.col("apart")).join(ca, "a").join(cb, "b")
                 .where(F.col("comp") == F.col("comp_b")).select("a", "b", "apart", "value", "comp"))
        (kept.select("a", "b", "apart", "value").unionByName(apart.select("a", "b", "apart", "value"))
         .orderBy("apart", "a", "b").select("value").write.text(out.uri("scores")))
        s = kept.join(ca, "a").select("comp", "value").unionByName(apart.select("comp", "value")).select(
            "comp", F.concat(F.lit("S\t"), "value").alias("value"))
        d = comp.join(norm, "id").select("comp", F.concat(F.lit("D\t"), "value").alias("value"))
        lines = s.unionByName(d).repartition(run.parts, "comp").select("value")
        grouped = run.pipe(lines, "cluster")
        # pl-cluster --renumber's order, in Spark: confidence (highest first), then smallest
        # member; a group's number is its place in that order (partitions of the sorted rows
        # are in order, so only one count per partition reaches the driver).
        ordered = grouped.select(
            F.get_json_object("value", "$.confidence").cast("double").alias("confidence"),
            F.array_min(F.from_json(F.get_json_object("value", "$.members"), "array<long>")).alias("first"),
            "value").orderBy(F.desc("confidence"), "first").select(
            "value", F.spark_partition_id().alias("part"),
            F.monotonically_increasing_id().alias("row")).persist()
        spans = {("", r["part"]): (r["n"], r["first"]) for r in ordered.groupBy("part").agg(
            F.count(F.lit(1)).alias("n"), F.min("row").alias("first")).collect()}
        total = sum(n for n, _ in spans.values())
        pairs = [F.lit(x) for (_, part), add in offsets(spans).items() for x in (part, add)]
        shift = F.create_map(*pairs) if pairs else F.create_map()
        number = (F.col("row") + shift[F.col("part")] + 1).cast("string")
        # pl-cluster writes "group" first: {"group":N,...}.
        rest = F.expr("substr(value, instr(value, ','))")
        ordered.select(F.concat(F.lit('{"group":'), number, rest).alias("value")).write.text(out.uri("groups"))
        ordered.unpersist()
        run.log(f"{total} groups")
    run.stage("groups", groups)
    return n_docs


def stages_json(run, n_docs):
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
    return json.dumps({"master": run.args.master, "partitions": run.parts, "documents": n_docs,
                       "stages": stages}, indent=1) + "\n"


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Refused as e:
        print(f"pl-spark: {e}", file=sys.stderr)
        sys.exit(1)
