// pl-report's page in a real headless Chromium (Debian's, driven by playwright-core):
// the example groups render without console errors, filters, decisions, keyboard and exports
// work, hostile document text stays inert, the page makes no network request, and --serve
// saves decisions to its file. Run by `make browser-test` (scripts/browser-setup.sh first).
//
// env: PL_BIN   directory with pl-report (default target/release)
//      GROUPS   groups NDJSON (default work/groups.ndjson), DOCS docs NDJSON (work/docs.ndjson)
//      SCORES   scores NDJSON (default work/scores.ndjson)
//      CHROMIUM browser binary (default /usr/bin/chromium)
//      PL_SCREENSHOT_DOCS=1  also write docs/report.png
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.resolve(ROOT, process.env.PL_BIN || "target/release");
const REPORT = path.join(BIN, "pl-report");
const GROUPS = path.resolve(ROOT, process.env.GROUPS || "work/groups.ndjson");
const DOCS = path.resolve(ROOT, process.env.DOCS || "work/docs.ndjson");
const SCORES = path.resolve(ROOT, process.env.SCORES || "work/scores.ndjson");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const ARTEFACTS = path.join(ROOT, "target", "browser");
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), "pl-report-browser-"));

const ndjson = (file) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

let browser;
before(async () => {
  assert.ok(fs.existsSync(CHROMIUM), `no browser at ${CHROMIUM}: run scripts/browser-setup.sh`);
  assert.ok(fs.existsSync(REPORT), `no ${REPORT}: build it first (make browser-test does)`);
  fs.mkdirSync(ARTEFACTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    // A fresh profile: playwright starts the browser with a new temporary --user-data-dir.
  });
});
after(async () => {
  if (browser) await browser.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

function buildReport(name, args) {
  const out = path.join(TMP, name);
  execFileSync(REPORT, [...args, "-o", out], { stdio: ["ignore", "ignore", "inherit"] });
  return out;
}

// A page with console errors, uncaught exceptions and requests recorded.
async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForSelector("#group-head");
  return { context, page, problems, requests };
}

const rows = (page) => page.locator("#list .row").count();
const countsText = (page) => page.locator("#counts").textContent();
const currentGroup = async (page) => Number(await page.locator("#group-head").getAttribute("data-group"));

async function setFilter(page, id, value) {
  await page.fill(id, String(value));
  await page.dispatchEvent(id, "input");
}

test("example groups render, filter, decide, persist and export", async () => {
  const groups = ndjson(GROUPS);
  const docs = Object.fromEntries(ndjson(DOCS).map((d) => [d.id, d]));
  const file = buildReport("example.html", [GROUPS, "--docs", DOCS, "--scores", SCORES, "--paperless-url", "http://paperless.invalid"]);
  const { context, page, problems, requests } = await open(pathToFileURL(file).href);

  // Every group listed, highest confidence first; the first one shown in detail.
  assert.equal(await rows(page), groups.length);
  assert.match(await countsText(page), new RegExp(`^${groups.length} of ${groups.length} groups shown`));
  const sorted = [...groups].sort((a, b) => b.confidence - a.confidence || a.group - b.group);
  assert.equal(await currentGroup(page), sorted[0].group);
  const listed = await page.locator("#list .row").evaluateAll((els) => els.map((e) => Number(e.dataset.group)));
  assert.deepEqual(listed, sorted.map((g) => g.group));
  // The members table: one column per member, the primary first and marked, links into Paperless.
  const g0 = sorted[0];
  assert.equal(await page.locator(".members thead th").count(), g0.members.length + 1);
  assert.match(await page.locator(".members thead th").nth(1).textContent(), /primary/);
  assert.equal(await page.locator(`.members a[href="http://paperless.invalid/documents/${g0.primary}/details"]`).count(), 1);
  assert.equal(await page.locator(".members td").filter({ hasText: docs[g0.primary].title }).count() >= 1, true);

  await fs.promises.writeFile(path.join(ARTEFACTS, "report.png"), await page.screenshot());

  // Filters: confidence, size, text; the counts follow.
  await setFilter(page, "#f-cmin", "0.99");
  assert.equal(await rows(page), groups.filter((g) => g.confidence >= 0.99 - 1e-9).length);
  await setFilter(page, "#f-cmin", "0");
  await setFilter(page, "#f-smin", "5");
  assert.equal(await rows(page), groups.filter((g) => g.members.length >= 5).length);
  await setFilter(page, "#f-smin", "2");
  await setFilter(page, "#f-smax", "2");
  assert.equal(await rows(page), groups.filter((g) => g.members.length === 2).length);
  await setFilter(page, "#f-smax", "");
  const probe = sorted[7];
  const probeTitle = docs[probe.members[probe.members.length - 1]].title;
  await setFilter(page, "#f-text", probeTitle);
  const hits = groups.filter((g) => g.members.some((m) => (docs[m].title || "").toLowerCase().includes(probeTitle.toLowerCase())));
  assert.equal(await rows(page), hits.length);
  assert.ok(hits.some((g) => g.group === probe.group));
  await setFilter(page, "#f-text", "");
  assert.equal(await rows(page), groups.length);

  // Keyboard: d on the first group, j + n on the second, j + 2 (another primary) + d on the third.
  await page.keyboard.press("Escape");
  await page.click("#list .row >> nth=0");
  assert.equal(await currentGroup(page), sorted[0].group);
  await page.keyboard.press("d");
  await page.keyboard.press("j");
  await page.keyboard.press("n");
  await page.keyboard.press("j");
  const third = sorted[2];
  const thirdOrder = [third.primary, ...third.members.filter((m) => m !== third.primary)];
  await page.keyboard.press("2");
  await page.keyboard.press("d");
  assert.match(await countsText(page), /2 duplicates · 1 not duplicates · 0 ignored/);
  assert.match(await page.locator(".members thead th").nth(1).textContent(), new RegExp(`primary\\s+#${thirdOrder[1]}$`));
  // Status filter.
  await page.selectOption("#f-status", "duplicate");
  assert.equal(await rows(page), 2);
  await page.selectOption("#f-status", "pending");
  assert.equal(await rows(page), groups.length - 3);
  await page.selectOption("#f-status", "");
  // A button works like its key: ignore the fourth group, then take it back to pending.
  await page.keyboard.press("j");
  await page.click("button[data-decision=ignore]");
  assert.match(await countsText(page), /1 ignored/);
  await page.keyboard.press("u");
  assert.match(await countsText(page), /0 ignored/);

  // The diff marks what differs: some group in the corpus has differing texts.
  let marked = 0;
  for (let i = 0; i < 6 && marked === 0; i++) {
    marked = await page.locator(".pane del, .pane ins").count();
    if (!marked) await page.keyboard.press("]");
  }
  assert.ok(marked > 0, "no differing word marked");
  // The README's picture: a decided group with its diff in view.
  await page.setViewportSize({ width: 1400, height: 1150 });
  await fs.promises.writeFile(path.join(ARTEFACTS, "report-diff.png"), await page.screenshot());
  if (process.env.PL_SCREENSHOT_DOCS === "1") await page.screenshot({ path: path.join(ROOT, "docs", "report.png") });
  await page.setViewportSize({ width: 1400, height: 900 });

  // Decisions survive a reload (localStorage).
  await page.reload();
  await page.waitForSelector("#group-head");
  assert.match(await countsText(page), /2 duplicates · 1 not duplicates · 0 ignored/);

  // Export: the decisions file pl-apply reads.
  const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#export-decisions")]);
  assert.equal(dl.suggestedFilename(), "decisions.ndjson");
  const exported = path.join(ARTEFACTS, "decisions.ndjson");
  await dl.saveAs(exported);
  const recs = ndjson(exported);
  const want = [
    { group: sorted[0].group, decision: "duplicate", primary: sorted[0].primary, members: sorted[0].members },
    { group: sorted[1].group, decision: "not-duplicate", primary: sorted[1].primary, members: sorted[1].members },
    { group: third.group, decision: "duplicate", primary: thirdOrder[1], members: third.members },
  ].sort((a, b) => a.group - b.group);
  assert.deepEqual(recs.map((r) => ({ group: r.group, decision: r.decision, primary: r.primary, members: r.members })), want);
  for (const r of recs) {
    assert.deepEqual(Object.keys(r), ["group", "decision", "primary", "members", "modified", "confidence", "decided_at"]);
    for (const m of r.members) assert.equal(r.modified[String(m)], docs[m].modified);
    assert.match(r.decided_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }

  // CSV: a header and one row per member.
  const [dl2] = await Promise.all([page.waitForEvent("download"), page.click("#export-csv")]);
  const csvFile = path.join(ARTEFACTS, "groups.csv");
  await dl2.saveAs(csvFile);
  const lines = fs.readFileSync(csvFile, "utf8").trimEnd().split("\r\n");
  assert.equal(lines[0], "group,confidence,jaccard,fuzzy,status,document_id,is_primary,title,correspondent,document_type,tags,created,added,page_count,url");
  assert.equal(lines.length - 1, groups.reduce((n, g) => n + g.members.length, 0));
  assert.ok(lines.some((l) => l.startsWith(`${third.group},`) && l.includes(`,duplicate,${thirdOrder[1]},true,`)));

  assert.deepEqual(problems, []);
  const foreign = requests.filter((u) => !/^(file|blob|data):/.test(u));
  assert.deepEqual(foreign, [], "the page asked the network");
  await context.close();
});

test("the decision buttons and the plan say what pl-apply will do", async () => {
  const groups = ndjson(GROUPS);
  const sorted = [...groups].sort((a, b) => b.confidence - a.confidence || a.group - b.group);
  const g0 = sorted[0];
  const others = g0.members.filter((m) => m !== g0.primary).map((m) => "#" + m).join(", ");
  const file = buildReport("plan.html", [GROUPS, "--docs", DOCS, "--note", "--link", "Duplicate of",
    "--tag", "dup <b id=x>'s"]);
  const { context, page, problems } = await open(pathToFileURL(file).href);
  const dup = page.locator("button[data-decision=duplicate]");
  assert.equal(await dup.textContent(), "Duplicates (d): tag, note, link");
  assert.equal(await page.locator("button[data-decision=ignore]").textContent(), "Ignore (i): left alone");
  const sentence = `tag ${others} \u201cdup <b id=x>'s\u201d, then add a note on each pointing to #${g0.primary}, ` +
    `then link each to #${g0.primary} in the field \u201cDuplicate of\u201d (shown on both documents); #${g0.primary} is kept untouched`;
  assert.equal(await dup.getAttribute("title"), "pl-apply will " + sentence);
  assert.equal(await page.locator("#group-plan").textContent(), "Duplicates (d): pl-apply would " + sentence + ".");
  // Before any decision the plan is empty; the command is the one to run.
  const plan = () => page.locator("#plan").textContent();
  assert.match(await plan(), /^Plan for pl-apply: nothing to do yet; 0 groups left alone\./);
  assert.match(await plan(), /run pl-apply decisions\.ndjson --tag 'dup <b id=x>'\\''s' --note --link 'Duplicate of' \(it prints this plan/);
  await page.keyboard.press("d");
  assert.equal(await page.locator("#group-plan").textContent(), "pl-apply will " + sentence + ".");
  const n = g0.members.length - 1;
  assert.match(await plan(), new RegExp(`^Plan for pl-apply: tag ${n} documents \u201cdup <b id=x>'s\u201d, add ${n} notes, ` +
    `link ${n} to their primary in \u201cDuplicate of\u201d \\(1 groups of duplicates, 1 documents kept untouched\\); 0 groups left alone`));
  await page.keyboard.press("j");
  await page.keyboard.press("n");
  assert.match(await plan(), /; 1 groups left alone/);
  assert.equal(await page.locator("#group-plan").textContent(), "pl-apply leaves this group alone.");
  assert.equal(await page.locator("#x").count(), 0, "the tag's name is text, not markup");
  await fs.promises.writeFile(path.join(ARTEFACTS, "plan.png"), await page.screenshot());
  // --delete: the note and the link go on first, then the trash.
  const trash = buildReport("plan-trash.html", [GROUPS, "--docs", DOCS, "--delete", "--link", "Dup"]);
  const t = await open(pathToFileURL(trash).href);
  assert.equal(await t.page.locator("button[data-decision=duplicate]").textContent(), "Duplicates (d): link, trash");
  assert.match(await t.page.locator("#plan").textContent(), /run pl-apply decisions\.ndjson --delete --link Dup /);
  assert.deepEqual(problems.concat(t.problems), []);
  await t.context.close();
  await context.close();
});

test("the word diff", async (t) => {
  const file = buildReport("tiny.html", [GROUPS, "--docs", DOCS]);
  const { context, page, problems } = await open(pathToFileURL(file).href);
  const d = await page.evaluate(() => [
    window.plReport.diff("a b c d", "a x c d"),
    window.plReport.diff("same text\nhere", "same  text here"),
    window.plReport.diff("", "new words"),
    window.plReport.diff("one two three four five", "zero one two four five six"),
  ]);
  assert.deepEqual(d[0].a, [[false, "a "], [true, "b "], [false, "c d"]]);
  assert.deepEqual(d[0].b, [[false, "a "], [true, "x "], [false, "c d"]]);
  assert.equal(d[0].changed, 1);
  assert.equal(d[1].changed, 0, "whitespace is not a difference");
  assert.deepEqual(d[2].b, [[true, "new words"]]);
  assert.deepEqual(d[3].a, [[false, "one two "], [true, "three "], [false, "four five"]]);
  assert.deepEqual(d[3].b, [[true, "zero "], [false, "one two "], [false, "four five "], [true, "six"]].reduce((acc, r) => {
    const last = acc[acc.length - 1];
    if (last && last[0] === r[0]) last[1] += r[1]; else acc.push([...r]);
    return acc;
  }, []));
  // Bounded: two unrelated 30000-word texts finish quickly, marked as too different.
  const big = await page.evaluate(() => {
    const a = Array.from({ length: 30000 }, (_, i) => "a" + i).join(" ");
    const b = Array.from({ length: 30000 }, (_, i) => "b" + i).join(" ");
    const t = performance.now();
    const r = window.plReport.diff(a, b);
    return { ms: performance.now() - t, note: r.note };
  });
  assert.ok(big.ms < 5000, `diff took ${big.ms} ms`);
  t.diagnostic(`two unrelated 30000-word texts: ${big.ms.toFixed(0)} ms`);
  // A realistic pair: 5000 words, 2% of them changed.
  const near = await page.evaluate(() => {
    const a = Array.from({ length: 5000 }, (_, i) => "w" + (i % 997));
    const b = a.map((w, i) => (i % 50 === 7 ? "x" + i : w));
    const t = performance.now();
    const r = window.plReport.diff(a.join(" "), b.join(" "));
    return { ms: performance.now() - t, changed: r.changed };
  });
  assert.equal(near.changed, 100);
  t.diagnostic(`5000 words, 100 changed: ${near.ms.toFixed(0)} ms`);
  assert.match(big.note, /cut to the first 20000 words/);
  assert.match(big.note, /differ too much/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("hostile document text stays inert", async () => {
  const evil = ['<script>window.__pwned=1</script>', '"><img src=x onerror="window.__pwned=1">',
    "</script><script>window.__pwned=1</script>", "\u2028<!--", "{{SCRIPT}}"];
  const docs = [1, 2, 3].map((id) => ({
    id,
    title: id === 3 ? "=HYPERLINK(\"http://evil.invalid\") title 3" : `${evil[(id - 1) % 2]} title ${id}`,
    content: `${evil.join(" ")} some shared words for the diff ${id === 2 ? "extra <b>bold</b>" : ""}`,
    correspondent: evil[1],
    document_type: evil[0],
    tags: [evil[0], evil[1], "<svg onload=window.__pwned=1>"],
    created: "2024-01-01",
    added: `2024-01-0${id}T00:00:00Z`,
    modified: `2024-01-0${id}T00:00:00Z`,
    original_file_name: evil[2],
    url: id === 1 ? "javascript:window.__pwned=1" : `http://p.invalid/x"><img src=x onerror=window.__pwned=1>`,
  }));
  const docsFile = path.join(TMP, "evil-docs.ndjson");
  fs.writeFileSync(docsFile, docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
  const groupsFile = path.join(TMP, "evil-groups.ndjson");
  fs.writeFileSync(groupsFile, JSON.stringify({ group: 1, confidence: 0.9, jaccard: 0.8, fuzzy: 0.95, pair: [1, 2], primary: 1, members: [1, 2, 3] }) + "\n");
  const file = buildReport("evil.html", [groupsFile, "--docs", docsFile]);
  const html = fs.readFileSync(file, "utf8");
  assert.ok(!html.includes("<script>window.__pwned"), "raw markup in the HTML");
  assert.ok(!html.includes("<img"), "raw markup in the HTML");
  const { context, page, problems } = await open(pathToFileURL(file).href);
  // Go through everything that shows data: the list, the table, every diff pair, the exports.
  for (const k of ["]", "]", "2", "3", "d"]) await page.keyboard.press(k);
  assert.equal(await page.locator("#list .row").count(), 1);
  await page.fill("#f-text", "<script>");
  await page.dispatchEvent("#f-text", "input");
  const [csvDl] = await Promise.all([page.waitForEvent("download"), page.click("#export-csv")]);
  const csvPath = path.join(TMP, "evil.csv");
  await csvDl.saveAs(csvPath);
  const csvText = fs.readFileSync(csvPath, "utf8");
  // A title a spreadsheet would run as a formula is quoted with a leading apostrophe.
  assert.ok(csvText.includes(`,"'=HYPERLINK(""http://evil.invalid"") title 3",`), csvText);
  assert.ok(!/,=/.test(csvText), "a cell starts with =");
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => typeof window.__pwned), "undefined");
  assert.equal(await page.locator("img, svg, iframe, object, main b").count(), 0, "markup from the data became elements");
  assert.equal(await page.locator('a[href^="javascript"]').count(), 0);
  // http(s) links are kept, their odd characters inert inside the attribute.
  assert.equal(await page.locator("a[href]").count(), 2);
  assert.equal(await page.locator("a[href]").first().getAttribute("href"), 'http://p.invalid/x"><img src=x onerror=window.__pwned=1>');
  const text = await page.locator("body").innerText();
  assert.ok(text.includes("<script>window.__pwned=1</script> title 1"), "the title shows as text");
  assert.ok(text.includes('"><img src=x onerror="window.__pwned=1">'));
  assert.ok(text.includes("<svg onload=window.__pwned=1>"), "tags show as text");
  assert.equal(await page.locator("#list .row").count(), 1, "the search for <script> finds the group");
  assert.deepEqual(problems, []);
  await page.screenshot({ path: path.join(ARTEFACTS, "hostile.png") });
  await context.close();
});

function request(port, method, pathname, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: pathname, headers }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, body: data }));
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

async function serve(decisions) {
  const child = spawn(REPORT, [GROUPS, "--docs", DOCS, "--serve", "--decisions", decisions], { stdio: ["ignore", "ignore", "pipe"] });
  const port = await new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (c) => {
      err += c;
      const m = err.match(/serving http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`pl-report --serve exited ${code}: ${err}`)));
  });
  return { child, port };
}

test("--serve saves each decision to the file", async () => {
  const groups = ndjson(GROUPS);
  const sorted = [...groups].sort((a, b) => b.confidence - a.confidence || a.group - b.group);
  const decisions = path.join(TMP, "served-decisions.ndjson");
  let { child, port } = await serve(decisions);
  try {
    const { context, page, problems, requests } = await open(`http://127.0.0.1:${port}/`);
    await page.keyboard.press("d");
    await page.waitForFunction(() => /saved 1 decisions/.test(document.getElementById("save-state").textContent));
    let recs = ndjson(decisions);
    assert.equal(recs.length, 1);
    assert.equal(recs[0].group, sorted[0].group);
    assert.equal(recs[0].decision, "duplicate");
    await page.keyboard.press("j");
    await page.keyboard.press("i");
    await page.waitForFunction(() => /saved 2 decisions/.test(document.getElementById("save-state").textContent));
    recs = ndjson(decisions);
    assert.deepEqual(recs.map((r) => [r.group, r.decision]).sort((a, b) => a[0] - b[0]),
      [[sorted[0].group, "duplicate"], [sorted[1].group, "ignore"]].sort((a, b) => a[0] - b[0]));
    // Another writer (a second tab) decides a third group meanwhile: the page's next save
    // merges, it does not erase it. Then "u" takes the second group's decision back.
    const third = sorted[2].group;
    const other = JSON.stringify({ group: third, decision: "not-duplicate", primary: sorted[2].primary, members: sorted[2].members }) + "\n";
    let w = await request(port, "PUT", "/decisions", other, { "Content-Type": "application/x-ndjson", "Content-Length": Buffer.byteLength(other) });
    assert.equal(w.status, 200);
    await page.keyboard.press("u");
    // The page said "saved 2 decisions" before too: wait for the file itself.
    const want = JSON.stringify([[sorted[0].group, "duplicate"], [third, "not-duplicate"]].sort((a, b) => a[0] - b[0]));
    const got = () => JSON.stringify(ndjson(decisions).map((r) => [r.group, r.decision]).sort((a, b) => a[0] - b[0]));
    for (let i = 0; i < 100 && got() !== want; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(got(), want);
    await page.keyboard.press("i");
    await page.waitForFunction(() => /saved 3 decisions/.test(document.getElementById("save-state").textContent));
    fs.writeFileSync(decisions, fs.readFileSync(decisions, "utf8").split("\n").filter((l) => l && JSON.parse(l).group !== third).join("\n") + "\n");
    assert.deepEqual(problems, []);
    assert.ok(requests.every((u) => u.startsWith(`http://127.0.0.1:${port}/`)), requests.join(" "));
    await context.close();

    // Other sites cannot write: another Origin, or another Host (DNS rebinding), is refused.
    const body = fs.readFileSync(decisions, "utf8");
    let r = await request(port, "PUT", "/decisions", "", { Origin: "http://evil.invalid", "Content-Length": 0 });
    assert.equal(r.status, 403);
    r = await request(port, "GET", "/", null, { Host: "evil.invalid:" + port });
    assert.equal(r.status, 403);
    const bad = '{"group":999999,"decision":"duplicate","primary":1,"members":[1]}\n';
    r = await request(port, "PUT", "/decisions", bad, { "Content-Type": "application/x-ndjson", "Content-Length": bad.length });
    assert.equal(r.status, 400);
    assert.match(r.body, /group 999999 is not in this report/);
    // A body without a length is refused, not read as "no decisions".
    r = await request(port, "PUT", "/decisions", "", { "Content-Type": "application/x-ndjson", "Transfer-Encoding": "chunked" });
    assert.equal(r.status, 411);
    assert.equal(fs.readFileSync(decisions, "utf8"), body, "a refused request changed the file");
  } finally {
    child.kill();
  }
  // A new server loads the saved decisions into the page.
  ({ child, port } = await serve(decisions));
  try {
    const { context, page, problems } = await open(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => /1 duplicates · 0 not duplicates · 1 ignored/.test(document.getElementById("counts").textContent));
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    child.kill();
  }
});
