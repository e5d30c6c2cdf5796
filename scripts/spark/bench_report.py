"""The tables of `make spark-bench` from its runs.tsv (size, runner, start, end, identical
groups, stages.json, peak RSS in KiB of pl-spark's largest process): usage: bench_report.py
RUNS TABLE_MD STAGES_MD."""
import json
import os
import sys


def mib(b):
    return f"{b / 2**20:,.0f}"


def main(runs_path, table_path, stages_path):
    rows = [line.rstrip("\n").split("\t") for line in open(runs_path, encoding="utf-8")]
    rows = [(n, who, float(t2) - float(t), same, path, rss) for n, who, t, t2, same, path, rss in rows]
    make = {n: s for n, who, s, _, _, _ in rows if who == "make"}
    table = ["| documents | run | wall (s) | vs make groups | groups identical | shuffle written (MiB) "
             "| peak RSS of its largest process (MiB) |",
             "|---:|---|---:|---:|---|---:|---:|"]
    stages = []
    for n, who, secs, same, path, rss in rows:
        secs = float(secs)
        if who == "make":
            table.append(f"| {int(n):,} | make groups (one machine, 2 threads) | {secs:.1f} | 1.00x | - | - | - |")
            continue
        st = json.load(open(path, encoding="utf-8"))
        written = sum(s["shuffle_write_bytes"] for s in st["stages"])
        runner = (f"pl-spark on a standalone cluster (two one-core workers, {st['partitions']} partitions)"
                  if who == "cluster" else f"pl-spark --master {who} ({st['partitions']} partitions)")
        table.append(f"| {int(n):,} | {runner} | {secs:.1f} | "
                     f"{secs / make[n]:.2f}x | {same} | {mib(written)} | {mib(int(rss) * 1024)} |")
        shown = "a standalone cluster (two one-core workers)" if who == "cluster" else f"`--master {who}`"
        stages.append(f"\n{int(n):,} documents, {shown}, {st['partitions']} partitions:\n")
        stages.append("| stage | wall (s) | shuffle written (MiB) | written per document (bytes) |")
        stages.append("|---|---:|---:|---:|")
        for s in st["stages"]:
            stages.append(f"| {s['stage']} | {s['seconds']:.1f} | {mib(s['shuffle_write_bytes'])} | "
                          f"{s['shuffle_write_bytes'] / int(n):,.0f} |")
    # Projection: the single-core run of the largest corpus, per document, to 100M documents.
    one = [(int(n), path) for n, who, _, _, path, _ in rows if who == "local[1]"]
    if one:
        n, path = max(one)
        st = json.load(open(path, encoding="utf-8"))
        stages.append(f"\nProjected to 100,000,000 documents from the `local[1]` run on {n:,} (CPU "
                      "seconds and shuffle bytes per document as measured, the same pairs per "
                      "document; executor cores run in parallel, so hours = CPU hours / cores):\n")
        stages.append("| stage | CPU per document (ms) | shuffle at 100M (GiB) | hours on 16 cores | hours on 128 cores |")
        stages.append("|---|---:|---:|---:|---:|")
        for s in st["stages"]:
            cpu = s["seconds"] / n
            hours = cpu * 1e8 / 3600
            stages.append(f"| {s['stage']} | {cpu * 1e3:.2f} | {s['shuffle_write_bytes'] / n * 1e8 / 2**30:,.0f} | "
                          f"{hours / 16:.1f} | {hours / 128:.2f} |")
    with open(table_path, "w", encoding="utf-8") as f:
        f.write("\n".join(table) + "\n")
    with open(stages_path, "w", encoding="utf-8") as f:
        f.write("\n".join(stages).lstrip("\n") + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
