#!/usr/bin/env python3
"""Fails when a source file in crates/ is over 800 lines or a function outside tests is over 80.

Issue 31's limits, checked by CI (`.ci/run`): functions are measured from their `fn` line to
the brace that closes them, with string and character literals and comments blanked first.
"""
import pathlib
import re
import sys

MAX_FILE, MAX_FN = 800, 80
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
CHAR = re.compile(r"'(?:\\.|[^'\\])'")
FN = re.compile(r"\s*(pub(\([\w:]+\))?\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")


def blank(line):
    line = CHAR.sub("''", STRING.sub('""', line))
    return line.split("//")[0]


def long_functions(path, rel):
    lines = path.read_text(encoding="utf-8").split("\n")
    clean = [blank(line) for line in lines]
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("#[cfg(test)]"):
            return  # the tests that follow are not measured
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        depth, opened, j = 0, False, i
        while j < len(lines):
            for ch in clean[j]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if (opened and depth == 0) or (not opened and clean[j].rstrip().endswith(";")):
                break
            j += 1
        if j - i + 1 > MAX_FN:
            yield f"{rel}:{i + 1}: fn {m.group(5)} is {j - i + 1} lines (at most {MAX_FN})"
        i = j + 1


def main():
    root = pathlib.Path(__file__).resolve().parent.parent / "crates"
    problems = []
    for path in sorted(root.rglob("*.rs")):
        rel = path.relative_to(root.parent)
        n = path.read_text(encoding="utf-8").count("\n")
        if n > MAX_FILE:
            problems.append(f"{rel}: {n} lines (at most {MAX_FILE})")
        if "tests" not in rel.parts and rel.name != "tests.rs":
            problems.extend(long_functions(path, rel))
    for p in problems:
        print(f"code-size: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
