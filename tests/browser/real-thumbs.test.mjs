// pl-report --thumbs against the real Paperless-NGX 3.0.5, in headless Chromium: the served
// page shows each member's thumbnail through pl-report --serve (linked to the document in
// Paperless; every request to the local server, the token in no page, request or answer), a
// member without a thumbnail says "page image unavailable", hostile titles stay inert, and the
// file page embeds the same images and asks nothing of the network. Run by
// scripts/real-report-test.sh (`make real-report-test`), which loads the documents, gives them
// thumbnails and sets the environment.
//
// env: PL_BIN, PL_GROUPS, PL_DOCS, PL_SCORES the tools and the pipeline's files of the real library
//      PAPERLESS_URL, TOKEN_FILE       the real server and its token
//      MISSING                         the id of the member without a thumbnail
//      CHROMIUM                        browser binary (default /usr/bin/chromium)
//      PL_SCREENSHOT_DOCS=1            also write docs/report-thumbs.png
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const env = (k) => { assert.ok(process.env[k], `${k} is not set: run scripts/real-report-test.sh`); return process.env[k]; };
const REPORT = path.join(env("PL_BIN"), "pl-report");
const [GROUPS, DOCS, SCORES, URL, TOKEN_FILE] = ["PL_GROUPS", "PL_DOCS", "PL_SCORES", "PAPERLESS_URL", "TOKEN_FILE"].map(env);
const MISSING = Number(env("MISSING"));
const TOKEN = fs.readFileSync(TOKEN_FILE, "utf8").trim();
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const ARTEFACTS = path.join(ROOT, "target", "browser");
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), "pl-report-real-"));
const ndjson = (file) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const GROUP_LIST = ndjson(GROUPS).sort((a, b) => b.confidence - a.confidence || a.group - b.group);
const BASE = ["--docs", DOCS, "--scores", SCORES, "--thumbs", "--token-file", TOKEN_FILE];

let browser;
before(async () => {
  fs.mkdirSync(ARTEFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] });
});
after(async () => {
  if (browser) await browser.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

// A page with its console errors, requests and answers (their bodies, to look for the token).
async function open(url, allowed404) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const problems = [], requests = [], bodies = [];
  page.on("console", (m) => {
    // The browser reports the missing thumbnail's 404 itself (the answers are checked below).
    if (allowed404 && /^Failed to load resource: the server responded with a status of 404/.test(m.text())) return;
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => requests.push(r));
  page.on("response", (r) => {
    bodies.push(r.body().catch(() => Buffer.alloc(0)));
    if (r.status() >= 400 && !(allowed404 && r.status() === 404 && r.url().endsWith(allowed404))) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector("#group-head");
  return { context, page, problems, requests, bodies };
}

// Waits until every page image of the shown group has loaded or been replaced by its note.
async function imagesSettled(page) {
  await page.waitForFunction(() => [...document.querySelectorAll("figure.page img")].every((i) => i.complete && i.naturalWidth > 0));
}

async function showGroup(page, group) {
  await page.click(`#list .row[data-group="${group}"]`);
  await page.waitForSelector(`#group-head[data-group="${group}"]`);
  await imagesSettled(page);
}

// The group shown has a thumbnail for each member (in the table and beside both diff panes),
// each linked to the document in Paperless, but the member `missing`, said in its place.
async function checkGroup(page, g, missing) {
  const shown = g.members.filter((m) => m !== missing);
  const ids = await page.locator(".members img[data-page]").evaluateAll((els) => els.map((e) => Number(e.dataset.page)));
  assert.deepEqual([...ids].sort((a, b) => a - b), shown.sort((a, b) => a - b));
  for (const m of shown) {
    const a = page.locator(`.members figure.page a:has(img[data-page="${m}"])`);
    assert.equal(await a.getAttribute("href"), `${URL}/documents/${m}/details`);
  }
  assert.equal(await page.locator(".diff .side figure.big").count(), 2);
  const notes = await page.locator(".members .page-missing").allTextContents();
  assert.equal(notes.length, g.members.includes(missing) ? 1 : 0, notes.join(" | "));
  for (const n of notes) assert.match(n, /^page image unavailable/);
}

async function noToken(bodies) {
  for (const b of await Promise.all(bodies)) assert.ok(!b.includes(TOKEN), "the token in an answer");
}

test("the served page shows the real thumbnails through pl-report --serve", async () => {
  const child = spawn(REPORT, [GROUPS, ...BASE, "--serve", "--decisions", "decisions.ndjson"],
    { stdio: ["ignore", "ignore", "pipe"], cwd: TMP });
  try {
    const port = await new Promise((resolve, reject) => {
      let err = "";
      child.stderr.on("data", (c) => { err += c; const m = err.match(/serving http:\/\/127\.0\.0\.1:(\d+)\//); if (m) resolve(Number(m[1])); });
      child.on("exit", (code) => reject(new Error(`pl-report --serve exited ${code}: ${err}`)));
    });
    const local = `http://127.0.0.1:${port}`;
    const { context, page, problems, requests, bodies } = await open(local + "/", `/thumb/${MISSING}`);
    const withMissing = GROUP_LIST.find((g) => g.members.includes(MISSING));
    for (const g of [withMissing, GROUP_LIST[0]]) {
      await showGroup(page, g.group);
      await checkGroup(page, g, MISSING);
    }
    assert.ok((await page.locator(".members .page-missing").count()) === 0);
    // The page as the docs show it: a group of three, its pages beside its fields and texts.
    const three = GROUP_LIST.find((g) => g.members.length === 3 && !g.members.includes(MISSING));
    await showGroup(page, three.group);
    await checkGroup(page, three, MISSING);
    await page.setViewportSize({ width: 1400, height: 1250 });
    await imagesSettled(page);
    await page.screenshot({ path: path.join(ARTEFACTS, "report-thumbs.png") });
    if (process.env.PL_SCREENSHOT_DOCS === "1") await page.screenshot({ path: path.join(ROOT, "docs", "report-thumbs.png") });
    // Hostile titles: shown as text beside their pages, nothing runs.
    await page.fill("#f-text", "window.__pwned");
    await page.dispatchEvent("#f-text", "input");
    assert.equal(await page.locator("#list .row").count(), 1);
    await page.click("#list .row >> nth=0");
    await imagesSettled(page);
    const shownGroup = Number(await page.locator("#group-head").getAttribute("data-group"));
    const hostile = GROUP_LIST.find((g) => g.group === shownGroup);
    await checkGroup(page, hostile, MISSING);
    assert.equal(await page.evaluate(() => typeof window.__pwned), "undefined");
    assert.equal(await page.locator("main img:not([data-page]), main b, main script").count(), 0);
    assert.match(await page.locator(".members").innerText(), /<img src=x onerror="window.__pwned=1"> invoice/);
    // Every request went to the local server; the token is in no page, request or answer.
    assert.deepEqual(requests.map((r) => r.url()).filter((u) => !u.startsWith(local + "/")), []);
    for (const r of requests) assert.ok(!JSON.stringify(await r.allHeaders()).includes(TOKEN), "the token in a request");
    assert.ok(!(await page.content()).includes(TOKEN));
    await noToken(bodies);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    child.kill();
  }
});

test("the file page embeds the real thumbnails and asks nothing of the network", async () => {
  const file = path.join(TMP, "report.html");
  execFileSync(REPORT, [GROUPS, ...BASE, "-o", file], { stdio: ["ignore", "ignore", "inherit"] });
  const html = fs.readFileSync(file, "utf8");
  assert.ok(!html.includes(TOKEN), "the token in the page");
  const { context, page, problems, requests } = await open(pathToFileURL(file).href);
  const withMissing = GROUP_LIST.find((g) => g.members.includes(MISSING));
  for (const g of [GROUP_LIST[0], withMissing]) {
    await showGroup(page, g.group);
    await checkGroup(page, g, MISSING);
  }
  assert.equal(await page.locator(".members .page-missing").first().textContent(), "page image unavailable (not found (HTTP 404))");
  const srcs = await page.locator("figure.page img").evaluateAll((els) => els.map((e) => e.getAttribute("src")));
  assert.ok(srcs.length > 0 && srcs.every((s) => s.startsWith("data:image/webp;base64,")), srcs.map((s) => s.slice(0, 30)).join(" "));
  assert.deepEqual(requests.map((r) => r.url()).filter((u) => !/^(file|data|blob):/.test(u)), []);
  assert.deepEqual(problems, []);
  await page.screenshot({ path: path.join(ARTEFACTS, "report-thumbs-file.png") });
  await context.close();
});
