"""`make dist-test`: the tarball `make dist` wrote, unpacked into an empty folder and run from
there with no clone in reach (a bare environment, another working folder, the repository's
paths nowhere on PATH): what it holds, the glibc its binaries need against the floor, the
pipeline (pl-dedupe on its bundled example corpus), and the service as the compose example runs
it (its entry script builds the index from a Paperless, then pl-watch answers /health and tags
a near-copy a webhook names; the token given as PAPERLESS_API_TOKEN, the alias). The Paperless
is the repository's test server (tests/paperless_server.py): the test's, not the package's.

Usage: python3 scripts/dist/test.py TARBALL GLIBC_FLOOR
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import glibc  # noqa: E402

TOKEN = "dist-T0ken-8c1f"
SECRET = "dist-s3cret"


def fail(msg):
    print(f"dist-test: FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def bare_env(tmp, **extra):
    """An environment with nothing of the clone: system PATH, a fresh HOME."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def unpack(tarball, into):
    """Unpacked with tar, as a user would; its one top folder."""
    os.mkdir(into)
    subprocess.run(["tar", "-xzf", os.path.abspath(tarball)], cwd=into, check=True)
    tops = os.listdir(into)
    check(len(tops) == 1, f"one top folder, got {sorted(tops)}")
    return os.path.join(into, tops[0])


def contents(root, version):
    """The files the three ways to run it need, the version filled in."""
    need = ["bin/pl-watch", "bin/pl-fetch", "bin/pl-index", "bin/pl-check", "bin/pl-dedupe",
            "share/man/man1/pl-watch.1", "share/bash-completion/completions/pl-watch",
            "share/paperless-dedupe/pipeline.mk", "share/paperless-dedupe/examples/docs.ndjson",
            "share/paperless-dedupe/hook/paperless-consume-hook.sh",
            "share/paperless-dedupe/hook/hook.env.example",
            "share/paperless-dedupe/dist/pl-watch.service",
            "share/paperless-dedupe/dist/compose.yaml",
            "share/paperless-dedupe/dist/pl-watch-start",
            "share/doc/paperless-dedupe/PAPERLESS.md"]
    for n in need:
        check(os.path.exists(os.path.join(root, n)), f"{n} missing from the tarball")
    for n in ["bin/pl-watch", "bin/pl-dedupe", "share/paperless-dedupe/dist/pl-watch-start",
              "share/paperless-dedupe/hook/paperless-consume-hook.sh"]:
        check(os.access(os.path.join(root, n), os.X_OK), f"{n} is not executable")
    dist = os.path.join(root, "share/paperless-dedupe/dist")
    for n in ["pl-watch.service", "compose.yaml"]:
        text = open(os.path.join(dist, n)).read()
        check("@VERSION@" not in text and f"paperless-dedupe-{version}" in text,
              f"{n}: the version is not filled in")
    compose = open(os.path.join(dist, "compose.yaml")).read()
    for k in ["PAPERLESS_URL", "PAPERLESS_TOKEN", "PAPERLESS_API_TOKEN", "PL_WATCH_SECRET",
              "/opt/paperless-dedupe/share/paperless-dedupe/dist/pl-watch-start",
              "image: ghcr.io/paperless-ngx/paperless-ngx"]:
        check(k in compose, f"compose.yaml lacks {k}")
    unit = open(os.path.join(dist, "pl-watch.service")).read()
    check("ExecStart=/opt/paperless-dedupe/bin/pl-watch " in unit, "the unit's ExecStart")
    check("LoadCredential=token:" in unit and "--token-file" in unit, "the unit's token")


def glibc_floor(root, floor):
    """Every binary's newest GLIBC_ version at most the floor; the reader agrees with objdump."""
    floor_v = tuple(int(x) for x in floor.split("."))
    bins = sorted(os.path.join(root, "bin", n) for n in os.listdir(os.path.join(root, "bin")))
    elves = [b for b in bins if open(b, "rb").read(4) == b"\x7fELF"]
    check(len(elves) >= 10, f"the Rust tools in bin/: {elves}")
    newest = max(glibc.glibc_versions(b)[-1] for b in elves)
    check(newest <= floor_v, f"the binaries need GLIBC_{glibc.show(newest)}, over {floor}")
    dump = subprocess.run(["objdump", "-T", os.path.join(root, "bin/pl-watch")],
                          capture_output=True, text=True, check=True).stdout
    seen = {tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_([0-9.]+[0-9])", dump)}
    check(glibc.glibc_versions(os.path.join(root, "bin/pl-watch")) == sorted(seen),
          "glibc.py and objdump -T disagree")
    doc = open(os.path.join(root, "share/doc/paperless-dedupe/PAPERLESS.md")).read()
    check(f"glibc {floor}" in doc, f"docs/PAPERLESS.md does not state the floor (glibc {floor})")
    print(f"dist-test: binaries need at most GLIBC_{glibc.show(newest)} (floor {floor})")


def pipeline(root, tmp):
    """pl-dedupe on its bundled example corpus, in an empty folder."""
    work = os.path.join(tmp, "pipeline")
    os.mkdir(work)
    r = subprocess.run([os.path.join(root, "bin/pl-dedupe"), "groups"], cwd=work,
                       env=bare_env(tmp), capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"pl-dedupe failed: {r.stderr[-2000:]}")
    groups = [json.loads(l) for l in open(os.path.join(work, "work/groups.ndjson")) if l.strip()]
    check(len(groups) >= 10, f"pl-dedupe found {len(groups)} groups on the example corpus")
    print(f"dist-test: pl-dedupe on the example corpus: {len(groups)} groups")


class Paperless:
    """The repository's test server (the test's Paperless, not part of the package)."""

    def __init__(self):
        self.p = subprocess.Popen([sys.executable, os.path.join(REPO, "tests/paperless_server.py"),
                                   "--token", TOKEN], stdout=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{int(self.p.stdout.readline().split()[1])}"

    def call(self, method, path, body=None, auth=True):
        req = urllib.request.Request(self.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
        req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", f"Token {TOKEN}")
        with urllib.request.urlopen(req) as r:
            return json.load(r)

    def stop(self):
        self.p.kill()
        self.p.wait()


def http(port, raw):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        out = b""
        while chunk := s.recv(4096):
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body or b"null")


def wait(what, f, most=120):
    start = time.time()
    while not f():
        check(time.time() - start < most, f"timed out waiting for {what}")
        time.sleep(0.1)


def service(root, tmp):
    """The compose service's entry: index built from Paperless, pl-watch serving."""
    pl = Paperless()
    try:
        docs = [json.loads(l) for l in open(os.path.join(root,
                "share/paperless-dedupe/examples/docs.ndjson"))][:60]
        ids = pl.call("POST", "/__control__", {"action": "add", "docs": [
            {"title": d["title"], "content": d["content"]} for d in docs]}, auth=False)["ids"]
        state = os.path.join(tmp, "dedupe")
        env = bare_env(tmp, PAPERLESS_URL=pl.url, PAPERLESS_API_TOKEN=TOKEN,
                       PL_WATCH_SECRET=SECRET, PL_DEDUPE_DIR=state,
                       PL_WATCH_LISTEN="127.0.0.1:0")
        log = open(os.path.join(tmp, "watch.log"), "w+")
        p = subprocess.Popen([os.path.join(root, "share/paperless-dedupe/dist/pl-watch-start")],
                             cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=log)
        try:
            text = lambda: open(log.name).read()
            wait("pl-watch listening", lambda: "listening on http://127.0.0.1:" in text()
                 or p.poll() is not None)
            check(p.poll() is None, f"the entry script stopped: {text()[-2000:]}")
            port = int(text().split("listening on http://127.0.0.1:")[1].split("/")[0])
            status, body = http(port, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            check(status == 200 and body["status"] == "ok", f"/health: {status} {body}")
            # A near-copy of the first document, uploaded, and its webhook.
            words = docs[0]["content"].split(" ")
            words[5] = words[5] + "x"
            (copy,) = pl.call("POST", "/__control__", {"action": "add", "docs": [
                {"title": "scan", "content": " ".join(words)}]}, auth=False)["ids"]
            hook = json.dumps({"doc_id": str(copy)}).encode()
            status, body = http(port, b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-PL-Secret: "
                                + SECRET.encode() + b"\r\nContent-Length: %d\r\n\r\n" % len(hook)
                                + hook)
            check(status == 202, f"webhook: {status} {body}")
            # The tag is added first, the note last.
            noted = lambda: bool(pl.call("GET", f"/api/documents/{copy}/notes/"))
            wait("the near-copy noted", noted)
            check(pl.call("GET", f"/api/documents/{copy}/")["tags"], "the near-copy's tag")
            notes = pl.call("GET", f"/api/documents/{copy}/notes/")
            check(len(notes) == 1 and f"#{ids[0]} " in notes[0]["note"], f"the note: {notes}")
            p.send_signal(signal.SIGTERM)
            check(p.wait(timeout=30) == 0, f"pl-watch's exit after SIGTERM: {text()[-2000:]}")
            check(TOKEN not in text(), "the token in pl-watch's log")
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    finally:
        pl.stop()
    print(f"dist-test: the compose entry built the index of {len(ids)} documents; pl-watch "
          "answered /health, tagged and noted a near-copy, stopped on SIGTERM")


def main(tarball, floor):
    started = time.time()
    version = re.search(r"paperless-dedupe-([0-9][^-/]*)-", os.path.basename(tarball)).group(1)
    with tempfile.TemporaryDirectory(prefix="pl-dist-") as tmp:
        root = unpack(tarball, os.path.join(tmp, "opt"))
        contents(root, version)
        glibc_floor(root, floor)
        pipeline(root, tmp)
        service(root, tmp)
    print(f"dist-test: {tarball} passed in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main(*sys.argv[1:3])
