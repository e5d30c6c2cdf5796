# pl-watch's latency (docs/PAPERLESS.md, section 7): 100 near-copies posted one at a time, each waited
# for, into an index of N documents (default 10000), against tests/paperless_server.py; p50/p99
# from the webhook to the -o record (written after the note), and the median of each step pl-watch
# logs (-v). Usage: python3 scripts/bench/watch.py BIN REPO WORKDIR [N] [KILLS]; a second run in
# the same WORKDIR with the same N reuses its index. KILLS > 0 (the 5): the service is
# killed (kill -9) that many times mid-run, evenly spread, each a moment after a webhook's 202 (its
# document in the inbox, being processed or about to be), and started again at once; the line then
# also says how many documents were lost (no -o record, or not tagged with exactly one note on the
# server) and the latencies include the restarts.
import json, os, random, re, shutil, socket, subprocess, sys, time, urllib.request
bin_dir, repo, w = sys.argv[1:4]
N, COPIES = int(sys.argv[4]) if len(sys.argv) > 4 else 10000, 100
KILLS = int(sys.argv[5]) if len(sys.argv) > 5 else 0
rng = random.Random(5)
vocab = [f"w{i}" for i in range(30000)]
docs = []
for i in range(N):
    # Owned by the test server's user (1), who owns the copies it holds: near-copies are the
    # owner's documents only.
    docs.append({"id": 100000 + i, "title": f"doc {i}", "content": " ".join(rng.choice(vocab) for _ in range(200)),
                 "owner": 1})
with open(f"{w}/docs.ndjson", "w") as f:
    for d in docs: f.write(json.dumps(d) + "\n")
# The index built once per WORKDIR and N (ix.pristine), copied for each run: two builds compared
# on the same index, without paying pl-index again.
t = time.time()
if not os.path.exists(f"{w}/ix.pristine"):
    subprocess.run([f"{bin_dir}/pl-index", "--index", f"{w}/ix.pristine", f"{w}/docs.ndjson", "-q", "-o", "/dev/null"], check=True)
    print(f"pl-index of {N} documents: {time.time()-t:.1f} s", file=sys.stderr)
shutil.rmtree(f"{w}/ix", ignore_errors=True)
shutil.copytree(f"{w}/ix.pristine", f"{w}/ix")
for f in ("out.ndjson", "watch.log"):
    if os.path.exists(f"{w}/{f}"): os.remove(f"{w}/{f}")
srv = subprocess.Popen(["python3", f"{repo}/tests/paperless_server.py", "--token", "bench-token"], stdout=subprocess.PIPE)
port = int(srv.stdout.readline().split()[1])
url = f"http://127.0.0.1:{port}"
def ctl(v):
    r = urllib.request.urlopen(urllib.request.Request(url + "/__control__", json.dumps(v).encode(), {"Content-Type": "application/json"}))
    return json.load(r)
copies = []
for i in range(COPIES):
    words = docs[i * 97]["content"].split()
    words[10] = words[10].replace("w", "vv")
    copies.append({"title": f"copy {i}", "content": " ".join(words)})
ids = ctl({"action": "add", "docs": copies})["ids"]
open(f"{w}/token", "w").write("bench-token\n"); open(f"{w}/secret", "w").write("s\n")
env = dict(os.environ, PAPERLESS_URL=url)
log = open(f"{w}/watch.log", "w")
def start():
    """pl-watch started (its log appended to), and the port it listens on. No sync: the server
    holds only the copies, not the indexed library."""
    before = open(f"{w}/watch.log").read().count("listening on")
    p = subprocess.Popen([f"{bin_dir}/pl-watch", "--index", f"{w}/ix", "--listen", "127.0.0.1:0", "--token-file", f"{w}/token",
                          "--secret-file", f"{w}/secret", "-o", f"{w}/out.ndjson", "-v", "--sync-every", "0"], env=env, stderr=log)
    while open(f"{w}/watch.log").read().count("listening on") == before: time.sleep(0.02)
    return p, int(open(f"{w}/watch.log").read().split("http://127.0.0.1:")[-1].split("/")[0])
p, wport = start()
kill_at = {ids[k * COPIES // (KILLS + 1)] for k in range(1, KILLS + 1)}
def post(i):
    body = json.dumps({"doc_id": str(i)}).encode()
    s = socket.create_connection(("127.0.0.1", wport))
    s.sendall(b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-PL-Secret: s\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    r = s.recv(4096); s.close(); assert b" 202 " in r, r
lat = []
for i in ids:
    t0 = time.time(); post(i)
    if i in kill_at:
        time.sleep(rng.uniform(0, 0.08))  # mid-document, or just before it is taken
        p.kill(); p.wait()
        p, wport = start()
    while True:
        lines = open(f"{w}/out.ndjson").read().splitlines() if os.path.exists(f"{w}/out.ndjson") else []
        if any(json.loads(l)["id"] == i for l in lines): break
        time.sleep(0.002)
    lat.append(time.time() - t0)
p.terminate(); p.wait()
recs = [json.loads(l) for l in open(f"{w}/out.ndjson")]
tagged = len({r["id"] for r in recs if r["tagged"]})
lost = ""
if KILLS:
    def api(path):
        h = {"Authorization": "Token bench-token", "Accept": "application/json; version=9"}
        return json.load(urllib.request.urlopen(urllib.request.Request(url + path, headers=h)))
    tag = api("/api/tags/?name__iexact=possible-duplicate")["results"][0]["id"]
    gone = [i for i in ids if i not in {r["id"] for r in recs}
            or tag not in api(f"/api/documents/{i}/")["tags"] or len(api(f"/api/documents/{i}/notes/")) != 1]
    lost = f"; {KILLS} kill -9 mid-run: {len(gone)} lost (no record, no tag or not one note){': ' + str(gone) if gone else ''}"
srv.kill()
lat.sort()
q = lambda x: lat[min(len(lat) - 1, int(x * len(lat)))]
print(f"{len(lat)} webhooks into a {N}-document index: p50 {q(0.5)*1000:.0f} ms, p99 {q(0.99)*1000:.0f} ms, max {lat[-1]*1000:.0f} ms; {tagged} tagged{lost}")
steps = {}
for line in open(f"{w}/watch.log"):
    if "before it was taken" in line:
        steps.setdefault("in the inbox", []).append(float(line.split("received ")[1].split(" ms")[0]))
        for name, ms in re.findall(r"([a-z/ -]+?) ([0-9.]+) ms", line.split("taken; ")[1]):
            steps.setdefault(name.strip(" ,"), []).append(float(ms))
med = lambda v: sorted(v)[len(v) // 2]
print("median per step (ms): " + ", ".join(f"{k} {med(v):.1f}" for k, v in steps.items()))
