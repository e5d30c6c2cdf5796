#!/usr/bin/env python3
"""Replace the text between <!-- NAME:start --> and <!-- NAME:end --> in FILE with a
fenced block holding the contents of SOURCE, so generated numbers never get typed.

usage: splice.py FILE NAME SOURCE
"""
import sys


def main() -> None:
    path, name, source = sys.argv[1:4]
    text = open(path, encoding="utf-8").read()
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        sys.exit(f"splice.py: {path}: markers {start} / {end} not found")
    body = open(source, encoding="utf-8").read().rstrip("\n")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    fence = "" if source.endswith(".md") else "```\n"
    new = f"{head}{start}\n{fence}{body}\n{fence}{end}{tail}"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    import os
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
