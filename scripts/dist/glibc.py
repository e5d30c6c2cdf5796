"""The newest glibc symbol version ELF binaries need, read from their version-needs section
(.gnu.version_r), and whether it is at most a floor: `make dist` refuses binaries that would not
run on the oldest system it promises (docs/PAPERLESS.md, section 8).

Usage: python3 glibc.py FLOOR FILE...   (one line; each file past the floor named, exit 1)
"""
import struct
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE


def glibc_versions(path):
    """The GLIBC_x.y versions `path` needs, as tuples, sorted; refuses a file that is no ELF."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"#!":
        return []  # a script: what it runs is the system's
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path}: neither an ELF file nor a script")
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        sec = lambda i: struct.unpack_from(order + "IIQQQQII", data, shoff + i * shentsize)
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        sec = lambda i: struct.unpack_from(order + "IIIIIIII", data, shoff + i * shentsize)
    found = set()
    for i in range(shnum):
        _, kind, _, _, off, _, link, info = sec(i)
        if kind != SHT_GNU_VERNEED:
            continue
        stroff = sec(link)[4]
        name = lambda o: data[stroff + o:data.index(b"\0", stroff + o)].decode()
        at = off
        for _ in range(info):  # sh_info: the number of Verneed entries
            _, cnt, _, aux, nxt = struct.unpack_from(order + "HHIII", data, at)
            a = at + aux
            for _ in range(cnt):
                _, _, _, vname, anext = struct.unpack_from(order + "IHHII", data, a)
                v = name(vname)
                if v.startswith("GLIBC_") and v[6:].replace(".", "").isdigit():
                    found.add(tuple(int(x) for x in v[6:].split(".")))
                a += anext
            at += nxt
    return sorted(found)


def show(v):
    return ".".join(map(str, v))


def main(argv):
    floor = tuple(int(x) for x in argv[1].split("."))
    newest, over = None, []
    for path in argv[2:]:
        vs = glibc_versions(path)
        if vs and vs[-1] > floor:
            over.append(f"{path}: needs GLIBC_{show(vs[-1])}")
        if vs and (newest is None or vs[-1] > newest):
            newest = vs[-1]
    for line in over:
        print(f"{line}, over the floor {show(floor)}", file=sys.stderr)
    need = f"GLIBC_{show(newest)}" if newest else "no glibc version"
    print(f"glibc.py: {len(argv) - 2} files, the newest need {need} (floor {show(floor)})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
