#!/usr/bin/env python3
"""Replace the sections of a benchmark report (each `## ` heading and what follows it up to the
next one) with those of a newer report of some of its corpora, keeping the rest: a corpus can be
measured again without rerunning every other size. A section is known by its heading up to the
first ':' or ' (' ("## Real text", "## 10,000 documents"); each one replaced says how it was
made (NOTE). Only the newer report's corpora are taken (its sections before "## Not measured
by this driver"); one the older report lacks goes before that section. The rest of the older
report (its header, the other corpora, the index's section) is kept as it is.

usage: splice_sections.py OLD NEW NOTE > OUT
"""
import re
import sys

GENERIC = "## Not measured by this driver"


def sections(text: str):
    """The preamble, then (key, section text) in order."""
    parts = re.split(r"(?m)^(?=## )", text)
    pre, out = parts[0], []
    for p in parts[1:]:
        heading = p.split("\n", 1)[0]
        key = re.split(r":| \(", heading, maxsplit=1)[0]
        out.append((key, p))
    return pre, out


def main() -> None:
    old_path, new_path, note = sys.argv[1:4]
    pre, old = sections(open(old_path, encoding="utf-8").read())
    _, new = sections(open(new_path, encoding="utf-8").read())
    fresh = {}
    for key, text in new:
        # The corpora's sections come first; what follows is the driver's and other tools'.
        if key == GENERIC:
            break
        heading, body = text.split("\n", 1)
        fresh[key] = f"{heading}\n\n_This section alone was measured again: {note}._\n{body}"
    if not fresh:
        sys.exit(f"splice_sections.py: {new_path}: no section to splice")
    old_keys = {k for k, _ in old}
    out, placed = [pre], set()
    for key, text in old:
        if key == GENERIC:
            for k, v in fresh.items():
                if k not in old_keys and k not in placed:
                    out.append(v)
                    placed.add(k)
        if key in fresh:
            out.append(fresh[key])
            placed.add(key)
        else:
            out.append(text)
    out.extend(v for k, v in fresh.items() if k not in placed)
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
