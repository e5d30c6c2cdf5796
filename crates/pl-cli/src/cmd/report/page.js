"use strict";
// pl-report's page. Every document field is untrusted: it reaches the DOM only through text
// nodes (el() below, textContent) and attributes set one by one; links only when http(s).
(function () {
  const DATA = JSON.parse(document.getElementById("pl-data").textContent);
  const META = DATA.meta || {};
  const GROUPS = DATA.groups || [];
  const DOCS = DATA.docs || {};
  // Page images (pl-report --thumbs): "embedded" in DATA.pages, or "served" from /thumb/ID.
  const PAGES = DATA.pages || {};
  const VERDICTS = ["duplicate", "not-duplicate", "ignore"];
  const MAX_TOKENS = 20000; // words per side in a diff
  const MAX_EDITS = 3000; // a diff needing more edits is shown as "too different"
  const KEY = "pl-report:" + (META.report_id || "");
  // What pl-apply does with a group decided duplicates (pl-report's --tag, --delete, --note,
  // --link, which pl-apply is to be given too).
  const APPLY = Object.assign({ tag: "duplicate", delete: false, note: false, link: null }, META.apply || {});

  // group number -> {decision, primary, decided_at}
  let decisions = {};
  // group number -> primary chosen without a decision yet
  const primaries = {};
  // group number -> [left id, right id] compared
  const compared = {};
  let visible = [];
  let current = 0;

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false) continue;
      e.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return e;
  }
  const $ = (id) => document.getElementById(id);
  const doc = (id) => DOCS[String(id)] || null;
  const str = (v) => (v === null || v === undefined ? "" : String(v));
  const fix = (v) => (typeof v === "number" ? v.toFixed(3) : "–");
  const safeUrl = (u) => (typeof u === "string" && /^https?:\/\//i.test(u) ? u : null);

  function status(g) {
    const d = decisions[g.group];
    return d ? d.decision : "pending";
  }
  function primaryOf(g) {
    const d = decisions[g.group];
    if (d && d.primary !== undefined) return d.primary;
    if (primaries[g.group] !== undefined) return primaries[g.group];
    return g.primary;
  }
  // Members with the primary first, then ascending ids.
  function ordered(g) {
    const p = primaryOf(g);
    return [p].concat(g.members.filter((m) => m !== p));
  }

  // ---- persistence: localStorage for a file, the server for --serve ----
  function record(g) {
    const d = decisions[g.group];
    const modified = {};
    for (const m of g.members) {
      const x = doc(m);
      modified[String(m)] = x && typeof x.modified === "string" ? x.modified : null;
    }
    return {
      group: g.group, decision: d.decision, primary: d.primary, members: g.members.slice(),
      modified: modified, confidence: g.confidence, decided_at: d.decided_at,
    };
  }
  function ndjson() {
    return GROUPS.filter((g) => decisions[g.group])
      .sort((a, b) => a.group - b.group)
      .map((g) => JSON.stringify(record(g)) + "\n").join("");
  }
  function setSaveState(text, error) {
    const s = $("save-state");
    s.textContent = text;
    s.className = error ? "error" : "";
  }
  // With --serve, only the group that changed is sent: the server merges it into the file, so
  // another tab's decisions are never overwritten.
  function persist(g) {
    if (META.serve) {
      const body = JSON.stringify(decisions[g.group] ? record(g) : { group: g.group, decision: "pending" }) + "\n";
      fetch("/decisions", { method: "PUT", headers: { "Content-Type": "application/x-ndjson" }, body: body })
        .then((r) => {
          if (!r.ok) return r.text().then((t) => { throw new Error(t || r.status); });
          return r.json().then((j) => setSaveState("saved " + j.saved + " decisions to " + str(META.decisions_file), false));
        })
        .catch((e) => setSaveState("NOT SAVED: " + e.message, true));
      return;
    }
    try {
      localStorage.setItem(KEY, JSON.stringify({ decisions: decisions, primaries: primaries }));
      setSaveState("kept in this browser; export to hand them to pl-apply", false);
    } catch (e) {
      setSaveState("this browser does not keep decisions (" + e.name + "): export before closing", true);
    }
  }
  function adopt(records) {
    const byGroup = {};
    for (const g of GROUPS) byGroup[g.group] = g;
    for (const r of records) {
      const g = byGroup[r.group];
      if (!g || VERDICTS.indexOf(r.decision) < 0 || g.members.indexOf(r.primary) < 0) continue;
      decisions[g.group] = { decision: r.decision, primary: r.primary, decided_at: str(r.decided_at) };
    }
  }
  function restore() {
    if (META.serve) {
      return fetch("/decisions").then((r) => r.text()).then((t) => {
        adopt(t.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)));
        setSaveState("decisions are saved to " + str(META.decisions_file), false);
      }).catch((e) => setSaveState("could not load saved decisions: " + e.message, true));
    }
    try {
      const s = JSON.parse(localStorage.getItem(KEY) || "null");
      if (s && typeof s === "object") {
        adopt(Object.entries(s.decisions || {}).map(([k, d]) => Object.assign({}, d, { group: Number(k) })));
        for (const [k, v] of Object.entries(s.primaries || {})) primaries[k] = v;
      }
    } catch (e) { /* nothing kept, or storage disabled */ }
    return Promise.resolve();
  }

  function decide(g, verdict) {
    if (verdict === null) delete decisions[g.group];
    else decisions[g.group] = { decision: verdict, primary: primaryOf(g), decided_at: new Date().toISOString() };
    persist(g);
    render();
  }
  function choosePrimary(g, id) {
    if (g.members.indexOf(id) < 0) return;
    primaries[g.group] = id;
    if (decisions[g.group]) {
      decisions[g.group].primary = id;
      decisions[g.group].decided_at = new Date().toISOString();
    }
    delete compared[g.group]; // compare the new primary with the next member
    persist(g);
    render();
  }

  // ---- filters ----
  function num(id, dflt) {
    const v = parseFloat($(id).value);
    return isNaN(v) ? dflt : v;
  }
  function haystack(g, withText) {
    const parts = ["#" + g.group];
    for (const m of g.members) {
      const d = doc(m);
      parts.push(String(m));
      if (!d) continue;
      parts.push(str(d.title), str(d.correspondent), str(d.document_type), str(d.original_file_name));
      if (Array.isArray(d.tags)) parts.push(d.tags.map(str).join(" "));
      if (withText) parts.push(str(d.content));
    }
    return parts.join("\n").toLowerCase();
  }
  function applyFilters() {
    const cmin = num("f-cmin", 0), cmax = num("f-cmax", 1);
    const smin = num("f-smin", 0), smax = num("f-smax", Infinity);
    const st = $("f-status").value;
    const q = $("f-text").value.trim().toLowerCase();
    const withText = $("f-content").checked;
    const keep = visible[current];
    visible = GROUPS.filter((g) => {
      const c = typeof g.confidence === "number" ? g.confidence : 0;
      if (c < cmin - 1e-9 || c > cmax + 1e-9) return false;
      if (g.members.length < smin || g.members.length > smax) return false;
      if (st && status(g) !== st) return false;
      if (q && haystack(g, withText).indexOf(q) < 0) return false;
      return true;
    });
    const i = visible.indexOf(keep);
    current = i >= 0 ? i : 0;
    render();
  }

  // ---- word diff (Myers, bounded) ----
  function tokens(text) {
    const t = str(text).replace(/^\s+/, "").match(/\S+\s*/g) || [];
    return t;
  }
  // Returns {a: [[changed, text]...], b: [...], changed, total, note}.
  function diff(textA, textB) {
    let ta = tokens(textA), tb = tokens(textB), note = "";
    if (ta.length > MAX_TOKENS || tb.length > MAX_TOKENS) {
      note = "texts cut to the first " + MAX_TOKENS + " words for the comparison";
      ta = ta.slice(0, MAX_TOKENS); tb = tb.slice(0, MAX_TOKENS);
    }
    const ids = new Map();
    const key = (t) => { const w = t.trimEnd(); let v = ids.get(w); if (v === undefined) { v = ids.size; ids.set(w, v); } return v; };
    const a = ta.map(key), b = tb.map(key);
    let pre = 0;
    while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
    let suf = 0;
    while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
    const A = a.slice(pre, a.length - suf), B = b.slice(pre, b.length - suf);
    const ops = myers(A, B); // array of 0 equal, 1 delete (A), 2 insert (B), or null
    const outA = [], outB = [];
    const push = (out, changed, t) => {
      const last = out[out.length - 1];
      if (last && last[0] === changed) last[1] += t; else out.push([changed, t]);
    };
    for (let i = 0; i < pre; i++) { push(outA, false, ta[i]); push(outB, false, tb[i]); }
    let changed = 0;
    if (ops === null) {
      note = (note ? note + "; " : "") + "the texts differ too much for a word diff: all of the middle is marked";
      for (let i = 0; i < A.length; i++) push(outA, true, ta[pre + i]);
      for (let j = 0; j < B.length; j++) push(outB, true, tb[pre + j]);
      changed = Math.max(A.length, B.length);
    } else {
      let i = pre, j = pre, del = 0, ins = 0;
      for (const op of ops) {
        if (op === 0) { push(outA, false, ta[i++]); push(outB, false, tb[j++]); changed += Math.max(del, ins); del = ins = 0; }
        else if (op === 1) { push(outA, true, ta[i++]); del++; }
        else { push(outB, true, tb[j++]); ins++; }
      }
      changed += Math.max(del, ins);
    }
    for (let k = 0; k < suf; k++) { push(outA, false, ta[ta.length - suf + k]); push(outB, false, tb[tb.length - suf + k]); }
    return { a: outA, b: outB, changed: changed, total: Math.max(ta.length, tb.length), note: note };
  }
  // Myers' O((N+M)D) greedy diff with a trace; null when more than MAX_EDITS edits are needed.
  function myers(a, b) {
    const n = a.length, m = b.length;
    if (n === 0 && m === 0) return [];
    const max = n + m, off = max + 1;
    const v = new Int32Array(2 * max + 3);
    const trace = [];
    let D = -1;
    outer:
    for (let d = 0; d <= Math.min(max, MAX_EDITS); d++) {
      trace.push(v.slice(off - d - 1, off + d + 2));
      for (let k = -d; k <= d; k += 2) {
        let x = (k === -d || (k !== d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
        let y = x - k;
        while (x < n && y < m && a[x] === b[y]) { x++; y++; }
        v[off + k] = x;
        if (x >= n && y >= m) { D = d; break outer; }
      }
    }
    if (D < 0) return null;
    const ops = [];
    let x = n, y = m;
    for (let d = D; d > 0; d--) {
      const t = trace[d], at = (k) => t[k + d + 1];
      const k = x - y;
      const pk = (k === -d || (k !== d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
      const px = at(pk), py = px - pk;
      while (x > px && y > py) { ops.push(0); x--; y--; }
      if (x === px) { ops.push(2); y--; } else { ops.push(1); x--; }
    }
    while (x > 0 && y > 0) { ops.push(0); x--; y--; }
    return ops.reverse();
  }

  // ---- page images ----
  const IMAGE_URI = /^data:image\/(webp|png|jpeg);base64,[A-Za-z0-9+\/=]*$/;
  function unavailable(why) {
    return el("span", { class: "page-missing" }, "page image unavailable" + (why ? " (" + why + ")" : ""));
  }
  // Document id's first page, linked to the document in Paperless; null without --thumbs. A
  // missing or broken image is said in its place.
  function pageImage(id, cls) {
    let src = null, why = "";
    if (META.pages === "served") src = "/thumb/" + Number(id);
    else if (META.pages === "embedded") {
      const p = PAGES[String(id)] || {};
      if (typeof p.src === "string" && IMAGE_URI.test(p.src)) src = p.src;
      else why = str(p.missing) || "not fetched";
    } else return null;
    const body = src ? el("img", {
      src: src, alt: "first page of #" + id, "data-page": id,
      on: { error: (e) => e.target.replaceWith(unavailable(META.pages === "served" ? "" : "not an image")) },
    }) : unavailable(why);
    const d = doc(id);
    const url = d && safeUrl(d.url);
    return el("figure", { class: "page " + cls },
      url ? el("a", { href: url, target: "_blank", rel: "noopener noreferrer", title: "open #" + id + " in Paperless" }, body) : body);
  }

  // ---- rendering ----
  function badge(s) { return el("span", { class: "badge " + s }, s); }
  function title(id) { const d = doc(id); return d && d.title ? str(d.title) : "(document " + id + ")"; }

  function renderList() {
    const list = $("list");
    list.replaceChildren();
    if (!visible.length) { list.appendChild(el("div", { class: "empty" }, "No group matches the filters.")); return; }
    visible.forEach((g, i) => {
      list.appendChild(el("button", {
        type: "button", class: "row" + (i === current ? " current" : ""), "data-group": g.group,
        on: { click: () => { current = i; render(); } },
      },
      el("span", {}, "#" + g.group + " · " + fix(g.confidence) + " · " + g.members.length + " docs "), badge(status(g)),
      el("span", { class: "t" }, title(primaryOf(g)))));
    });
    const cur = list.querySelector(".current");
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });
  }

  function pairScore(g, x, y) {
    const a = Math.min(x, y), b = Math.max(x, y);
    for (const p of g.pairs || []) if (p[0] === a && p[1] === b) return p;
    return null;
  }

  function membersTable(g) {
    const p = primaryOf(g);
    const ms = ordered(g);
    const pd = doc(p) || {};
    const rows = [
      ["Title", (d) => str(d.title), "title"],
      ["Correspondent", (d) => str(d.correspondent), "correspondent"],
      ["Document type", (d) => str(d.document_type), "document_type"],
      ["Tags", (d) => (Array.isArray(d.tags) ? d.tags : []), "tags"],
      ["Created", (d) => str(d.created).slice(0, 10), "created"],
      ["Added", (d) => str(d.added).replace("T", " ").slice(0, 16), "added"],
      ["Modified", (d) => str(d.modified).replace("T", " ").slice(0, 16), "modified"],
      ["Pages", (d) => str(d.page_count), "page_count"],
      ["File", (d) => str(d.original_file_name), "original_file_name"],
    ];
    const head = el("tr", {}, el("th", {}, ""), ms.map((m, i) => {
      const d = doc(m);
      const url = d && safeUrl(d.url);
      return el("th", { class: m === p ? "primary" : null },
        m === p ? el("span", { class: "mark" }, "★ primary ") : el("button", {
          type: "button", title: "keep this one instead (" + (i + 1) + ")",
          on: { click: () => choosePrimary(g, m) },
        }, (i + 1) + ": make primary"),
        " ", url ? el("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, "#" + m) : "#" + m);
    }));
    const body = rows.map(([label, get, key]) => el("tr", {}, el("th", {}, label), ms.map((m) => {
      const d = doc(m);
      if (!d) return el("td", { class: "note" }, "no record");
      const v = get(d);
      const pv = get(pd);
      const differs = m !== p && JSON.stringify(v) !== JSON.stringify(pv) && key !== "added" && key !== "modified";
      const cell = Array.isArray(v) ? v.map((t) => el("span", { class: "tag" }, str(t))) : v;
      return el("td", { class: m === p ? "primary" : differs ? "differs" : null }, cell);
    })));
    const pageRow = META.pages ? el("tr", { class: "pages" }, el("th", {}, "Page"), ms.map((m) =>
      el("td", { class: m === p ? "primary" : null }, pageImage(m, "small")))) : null;
    const scoreRow = el("tr", {}, el("th", {}, "Score vs primary"), ms.map((m) => {
      if (m === p) return el("td", { class: "primary" }, "–");
      const s = pairScore(g, p, m);
      return el("td", {}, s ? "score " + fix(s[2]) + " · jaccard " + fix(s[3]) + " · fuzzy " + fix(s[4]) : "not scored directly");
    }));
    return el("div", { class: "members" }, el("table", {}, el("thead", {}, head), el("tbody", {}, pageRow, body, scoreRow)));
  }

  function diffView(g) {
    const ms = ordered(g);
    let c = compared[g.group];
    if (!c || ms.indexOf(c[0]) < 0 || ms.indexOf(c[1]) < 0 || c[0] === c[1]) c = compared[g.group] = [ms[0], ms[1]];
    const select = (side) => el("select", {
      "aria-label": side ? "right document" : "left document",
      on: { change: (e) => { compared[g.group][side] = Number(e.target.value); render(); } },
    }, ms.map((m) => { const o = el("option", { value: m }, "#" + m + " " + title(m).slice(0, 60)); o.selected = m === c[side]; return o; }));
    const da = doc(c[0]), db = doc(c[1]);
    const res = diff(da ? da.content : "", db ? db.content : "");
    const pane = (id, runs, tag, d) => el("div", { class: "pane", "data-doc": id },
      el("h3", {}, "#" + id + " " + title(id) + (d && d.truncated ? " (text cut)" : "")),
      runs.map(([ch, t]) => (ch ? el(tag, {}, t) : t)));
    return el("div", {},
      el("div", { class: "compare" }, "Compare", select(0), "with", select(1),
        el("span", { class: "scores" }, res.changed + " of " + res.total + " words differ"),
        res.note ? el("span", { class: "note" }, res.note) : null),
      el("div", { class: "diff" }, side(c[0], pane(c[0], res.a, "del", da)), side(c[1], pane(c[1], res.b, "ins", db))));
  }

  // A text pane with the document's first page beside it (with --thumbs).
  function side(id, pane) {
    const img = pageImage(id, "big");
    return img ? el("div", { class: "side" }, img, pane) : pane;
  }

  // ---- what pl-apply will do ----
  // Its operations on each non-primary member, in its order (note and link before the trash).
  function applyOps() {
    const extra = (APPLY.note ? ["note"] : []).concat(APPLY.link ? ["link"] : []);
    return APPLY.delete ? extra.concat(["trash"]) : ["tag"].concat(extra);
  }
  const quoted = (s) => "\u201c" + str(s) + "\u201d";
  // One sentence: what pl-apply does to `ids` (non-primaries) of a group kept as `primary`.
  function applySentence(ids, primary) {
    const them = ids.map((m) => "#" + m).join(", ");
    const words = {
      tag: "tag " + them + " " + quoted(APPLY.tag),
      note: "add a note on each pointing to #" + primary,
      link: "link each to #" + primary + " in the field " + quoted(APPLY.link) + " (shown on both documents)",
      trash: "move " + them + " to the Paperless trash",
    };
    return applyOps().map((op) => words[op]).join(", then ") + "; #" + primary + " is kept untouched";
  }
  // The shell command that carries the decisions out.
  function applyCommand() {
    const q = (s) => (/^[\w.\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'");
    const args = ["pl-apply", q(META.decisions_file || "decisions.ndjson")];
    if (APPLY.tag !== "duplicate" && !APPLY.delete) args.push("--tag", q(APPLY.tag));
    if (APPLY.delete) args.push("--delete");
    if (APPLY.note) args.push("--note");
    if (APPLY.link) args.push("--link", q(APPLY.link));
    return args.join(" ");
  }
  function renderPlan() {
    const kept = new Set();
    const touched = new Set();
    let dup = 0;
    let alone = 0;
    for (const g of GROUPS) {
      const d = decisions[g.group];
      if (!d) continue;
      if (d.decision !== "duplicate") { alone++; continue; }
      dup++;
      kept.add(d.primary);
      g.members.forEach((m) => { if (m !== d.primary) touched.add(m); });
    }
    kept.forEach((m) => touched.delete(m));
    const n = touched.size;
    const words = { tag: "tag " + n + " documents " + quoted(APPLY.tag), note: "add " + n + " notes",
      link: "link " + n + " to their primary in " + quoted(APPLY.link), trash: "move " + n + " to the trash" };
    $("plan").replaceChildren(
      "Plan for pl-apply: " + (dup ? applyOps().map((op) => words[op]).join(", ") + " (" + dup + " groups of duplicates, " +
        kept.size + " documents kept untouched)" : "nothing to do yet") + "; " + alone + " groups left alone. " +
        "Nothing is sent to Paperless from this page: export the decisions and run ",
      el("code", {}, applyCommand()), " (it prints this plan, checked against Paperless; add ",
      el("code", {}, "--yes"), " to apply it).");
  }

  function renderDetail() {
    const box = $("detail");
    box.replaceChildren();
    const g = visible[current];
    if (!g) return;
    const s = status(g);
    const btn = (cls, verdict, label, does) => el("button", {
      type: "button", class: cls + (s === verdict ? " on" : ""), "data-decision": verdict, title: does,
      on: { click: () => decide(g, s === verdict ? null : verdict) },
    }, label);
    const primary = primaryOf(g);
    const others = g.members.filter((m) => m !== primary);
    const sentence = applySentence(others, primary);
    box.appendChild(el("div", { class: "ghead", id: "group-head", "data-group": g.group },
      el("h2", {}, "Group " + g.group), badge(s),
      el("span", { class: "scores" }, "confidence " + fix(g.confidence) + " · jaccard " + fix(g.jaccard) +
        " · fuzzy " + fix(g.fuzzy) + " · " + g.members.length + " documents · " + (current + 1) + " of " + visible.length)));
    box.appendChild(el("div", { class: "decide" },
      btn("dup", "duplicate", "Duplicates (d): " + applyOps().join(", "), "pl-apply will " + sentence),
      btn("nodup", "not-duplicate", "Not duplicates (n): left alone", "pl-apply leaves this group alone"),
      btn("ign", "ignore", "Ignore (i): left alone", "pl-apply leaves this group alone"),
      el("button", { type: "button", on: { click: () => decide(g, null) } }, "Pending (u)"),
      el("button", { type: "button", on: { click: () => move(-1) } }, "← previous (k)"),
      el("button", { type: "button", on: { click: () => move(1) } }, "next (j) →")));
    box.appendChild(el("p", { class: "gplan", id: "group-plan" }, s === "duplicate"
      ? "pl-apply will " + sentence + "."
      : s === "pending" ? "Duplicates (d): pl-apply would " + sentence + "." : "pl-apply leaves this group alone."));
    box.appendChild(membersTable(g));
    box.appendChild(diffView(g));
  }

  function renderCounts() {
    const n = { pending: 0, duplicate: 0, "not-duplicate": 0, ignore: 0 };
    for (const g of GROUPS) n[status(g)]++;
    $("counts").textContent = visible.length + " of " + GROUPS.length + " groups shown · " + n.pending + " pending · " +
      n.duplicate + " duplicates · " + n["not-duplicate"] + " not duplicates · " + n.ignore + " ignored" +
      (META.across_owners ? " · " + META.across_owners + " groups join documents of different owners " +
        "(pl-cluster --across-owners was given)" : "");
  }

  function render() {
    renderCounts();
    renderPlan();
    renderList();
    renderDetail();
  }

  function move(step) {
    if (!visible.length) return;
    current = Math.max(0, Math.min(visible.length - 1, current + step));
    render();
  }

  // ---- exports ----
  function download(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type: type }));
    const a = el("a", { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  // A cell a spreadsheet will not run as a formula, quoted as RFC 4180 says.
  function csvCell(v) {
    let s = str(v);
    if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }
  function csv() {
    const cols = ["group", "confidence", "jaccard", "fuzzy", "status", "document_id", "is_primary", "title",
      "correspondent", "document_type", "tags", "created", "added", "page_count", "url"];
    const lines = [cols.join(",")];
    for (const g of GROUPS) {
      const p = primaryOf(g);
      for (const m of ordered(g)) {
        const d = doc(m) || {};
        lines.push([g.group, g.confidence, g.jaccard, g.fuzzy, status(g), m, m === p ? "true" : "false", d.title,
          d.correspondent, d.document_type, Array.isArray(d.tags) ? d.tags.join("; ") : "", d.created, d.added,
          d.page_count, safeUrl(d.url) || ""].map(csvCell).join(","));
      }
    }
    return lines.join("\r\n") + "\r\n";
  }

  // ---- keyboard ----
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    const typing = t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
    if (e.key === "Escape") { if (typing) t.blur(); return; }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    const g = visible[current];
    const k = e.key;
    if (k === "j" || k === "ArrowDown") move(1);
    else if (k === "k" || k === "ArrowUp") move(-1);
    else if (k === "/") $("f-text").focus();
    else if (k === "?") toggleHelp();
    else if (!g) return;
    else if (k === "d") decide(g, "duplicate");
    else if (k === "n") decide(g, "not-duplicate");
    else if (k === "i") decide(g, "ignore");
    else if (k === "u") decide(g, null);
    else if (/^[1-9]$/.test(k)) { const m = ordered(g)[Number(k) - 1]; if (m !== undefined) choosePrimary(g, m); }
    else if (k === "[" || k === "]") {
      const ms = ordered(g);
      const c = compared[g.group] || [ms[0], ms[1]];
      let i = ms.indexOf(c[1]);
      do { i = (i + (k === "]" ? 1 : ms.length - 1)) % ms.length; } while (ms[i] === c[0]);
      compared[g.group] = [c[0], ms[i]];
      render();
    } else return;
    e.preventDefault();
  });
  function toggleHelp() {
    const h = $("help");
    h.hidden = !h.hidden;
    $("help-toggle").setAttribute("aria-expanded", String(!h.hidden));
  }

  // ---- wiring ----
  document.title = str(META.title) || "Duplicate review";
  $("title").textContent = document.title;
  for (const id of ["f-cmin", "f-cmax", "f-smin", "f-smax", "f-status", "f-text", "f-content"]) {
    $(id).addEventListener("input", applyFilters);
    $(id).addEventListener("change", applyFilters);
  }
  $("filters").addEventListener("submit", (e) => e.preventDefault());
  $("export-decisions").addEventListener("click", () => download("decisions.ndjson", "application/x-ndjson", ndjson()));
  $("export-csv").addEventListener("click", () => download("groups.csv", "text/csv", csv()));
  $("help-toggle").addEventListener("click", toggleHelp);
  // For tests and the curious: the diff and the exports, callable from the console.
  window.plReport = { diff: diff, decisions: ndjson, csv: csv };
  restore().then(applyFilters);
})();
