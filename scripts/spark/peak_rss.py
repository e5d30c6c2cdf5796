"""peak_rss.py FILE CMD...: runs CMD and writes to FILE the largest peak RSS (KiB) any process
of its tree reached (VmHWM, read every half second from /proc while the tree lives): pyspark
starts its JVM as a child it never waits for, so getrusage would see Python alone. Exits with
CMD's status. Linux only."""
import os
import subprocess
import sys
import time


def tree(root):
    """The pids of root and its descendants now."""
    children = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(pid))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def hwm(pid):
    """A process's peak RSS in KiB, 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    proc = subprocess.Popen(cmd)
    peak = 0
    while proc.poll() is None:
        peak = max([peak] + [hwm(p) for p in tree(proc.pid)])
        time.sleep(0.5)
    with open(out, "w", encoding="ascii") as f:
        f.write(f"{peak}\n")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
