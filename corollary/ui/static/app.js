// corollary inspector: a page per route (#/beliefs, #/belief/KEY, #/problems, #/sources,
// #/source/NAME, #/promises), drawn from the JSON API under /api/ (docs/ui.md). Written by
// hand: no library, no network beyond this server. Text always goes in as text, never as HTML.
"use strict";

const main = document.getElementById("main");
const statusBox = document.getElementById("status");

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

async function api(path) {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

const conf = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(2));
const num = (x, d = 3) => (x === null || x === undefined ? "–" : String(Number(Number(x).toPrecision(d))));
const when = (t) => (t === null || t === undefined ? "–" : new Date(t * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z"));
function age(s) {
  if (s === null || s === undefined) return "–";
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}
const beliefHref = (key) => `#/belief/${encodeURIComponent(key)}`;
const sourceHref = (name) => `#/source/${encodeURIComponent(name)}`;
const badge = (label, c) => el("span", { class: `badge ${label === "IN" ? "in" : "out"}` },
  label === "IN" ? `IN ${conf(c)}` : "OUT");

function table(caption, head, rows, empty) {
  if (!rows.length) return el("p", { class: "empty" }, empty || "Nothing here.");
  return el("div", { class: "scroll" }, el("table", {},
    el("caption", { class: "sr-only" }, caption),
    el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c)))))));
}

function section(title, ...content) {
  return el("section", { class: "card", "aria-label": title }, el("h2", {}, title), ...content);
}

// -- routing ------------------------------------------------------------------------------
let current = null;
function parseRoute() {
  const hash = location.hash.replace(/^#\/?/, "") || "beliefs";
  const [path, query] = hash.split("?");
  const [page, ...rest] = path.split("/");
  return { page, arg: rest.length ? decodeURIComponent(rest.join("/")) : null,
           params: new URLSearchParams(query || "") };
}

async function render(quiet) {
  const route = parseRoute();
  current = route;
  for (const a of document.querySelectorAll("nav a")) {
    const here = a.dataset.page === route.page ||
      (route.page === "belief" && a.dataset.page === "beliefs") ||
      (route.page === "source" && a.dataset.page === "sources");
    if (here) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  const pages = { beliefs, belief, problems, sources, source, promises };
  const draw = pages[route.page] || beliefs;
  try {
    const view = await draw(route);
    if (route !== current) return; // a newer route was drawn meanwhile
    main.replaceChildren(view);
    main.setAttribute("aria-busy", "false");
    if (!quiet) main.focus({ preventScroll: true });
  } catch (err) {
    main.replaceChildren(el("div", { class: "card error", role: "alert" }, el("h1", {}, "Could not load this page"), String(err.message || err)));
  }
}
window.addEventListener("hashchange", () => render(false));

// -- beliefs ------------------------------------------------------------------------------
const COLUMNS = [["key", "Key"], [null, "Value"], ["label", "Label"], ["confidence", "Confidence"],
                 ["source", "Source"], [null, "Kind"], ["age", "Age"]];

async function beliefs(route) {
  const p = route.params;
  const q = new URLSearchParams();
  for (const k of ["q", "sort", "order", "label", "source", "kind", "min_confidence", "offset", "limit"]) {
    if (p.get(k)) q.set(k, p.get(k));
  }
  const data = await api(`/api/beliefs?${q}`);
  const go = (changes) => {
    const next = new URLSearchParams(p);
    for (const [k, v] of Object.entries(changes)) { if (v === null || v === "") next.delete(k); else next.set(k, v); }
    if (!("offset" in changes)) next.delete("offset");
    location.hash = `#/beliefs?${next}`;
  };
  const searchBox = el("input", { id: "q", type: "search", name: "q", value: p.get("q") || "",
                                  placeholder: "e.g. growth, customer 7 email" });
  const search = el("form", { class: "search", role: "search", onsubmit: (e) => { e.preventDefault(); go({ q: searchBox.value.trim() }); } },
    el("label", { for: "q" }, "Search (recall)"), searchBox, el("button", { type: "submit" }, "Search"),
    p.get("q") ? el("button", { type: "button", class: "link", onclick: () => go({ q: null }) }, "Clear") : null);
  const select = (id, label, name, options) => el("div", { class: "field" },
    el("label", { for: id }, label),
    el("select", { id, name, onchange: (e) => go({ [name]: e.target.value }) },
      el("option", { value: "" }, "any"),
      options.map((o) => el("option", { value: o, selected: p.get(name) === o }, o))));
  const minBox = el("input", { id: "min", type: "number", min: "0", max: "1", step: "0.05",
                               value: p.get("min_confidence") || "", inputmode: "decimal" });
  const filters = el("form", { class: "filters", "aria-label": "Filters", onsubmit: (e) => { e.preventDefault(); go({ min_confidence: minBox.value }); } },
    select("f-label", "Label", "label", ["IN", "OUT"]),
    select("f-source", "Source", "source", data.sources),
    select("f-kind", "Kind", "kind", data.kinds),
    el("div", { class: "field" }, el("label", { for: "min" }, "Confidence at least"), minBox),
    el("button", { type: "submit" }, "Apply"));
  const sort = p.get("sort") || "key";
  const desc = p.get("order") === "desc";
  const head = COLUMNS.map(([col, title]) => {
    if (!col || data.query) return el("th", { scope: "col" }, title);
    const on = sort === col;
    return el("th", { scope: "col", "aria-sort": on ? (desc ? "descending" : "ascending") : "none" },
      el("button", { class: "sort", type: "button", onclick: () => go({ sort: col, order: on && !desc ? "desc" : null }) },
        title, el("span", { "aria-hidden": "true", class: "arrow" }, on ? (desc ? " ▼" : " ▲") : " ↕")));
  });
  const rows = data.rows.map((r) => el("tr", {},
    el("td", {}, el("a", { href: beliefHref(r.key), class: "key" }, r.key)),
    el("td", { class: "value" }, r.value_text),
    el("td", {}, badge(r.label, r.confidence)),
    el("td", { class: "num" }, el("span", { class: "meter", style: `--c:${r.confidence}`, "aria-hidden": "true" }), conf(r.confidence)),
    el("td", {}, r.source && r.source.includes(":") ? el("a", { href: sourceHref(r.source) }, r.source) : r.source),
    el("td", {}, r.kind),
    el("td", { class: "num" }, age(r.age))));
  const first = data.total ? data.offset + 1 : 0;
  const last = Math.min(data.offset + data.rows.length, data.total);
  const limit = data.limit;
  const pager = el("nav", { class: "pager", "aria-label": "Pages of beliefs" },
    el("button", { type: "button", disabled: data.offset <= 0, onclick: () => go({ offset: Math.max(0, data.offset - limit) }) }, "← Previous"),
    el("span", { class: "muted" }, data.query ? `${data.total} found for “${data.query}”` : `${first.toLocaleString()}–${last.toLocaleString()} of ${data.total.toLocaleString()}`),
    el("button", { type: "button", disabled: last >= data.total, onclick: () => go({ offset: data.offset + limit }) }, "Next →"));
  const body = data.rows.length
    ? el("div", { class: "scroll" }, el("table", { id: "beliefs" },
        el("caption", { class: "sr-only" }, "Beliefs"),
        el("thead", {}, el("tr", {}, head)), el("tbody", {}, rows)))
    : el("p", { class: "empty" }, data.query ? "Nothing held matches." : "No beliefs match these filters.");
  return el("div", {},
    el("h1", {}, "Beliefs", el("span", { class: "count" }, `${data.count.toLocaleString()} in the base`)),
    el("div", { class: "card tools" }, search, filters), el("div", { class: "card" }, body, pager));
}

// -- one belief ---------------------------------------------------------------------------
function proofTree(text) {
  // the proof as explain prints it, folded by its own tree drawing: every line is kept whole
  const root = { children: [] };
  const stack = [{ depth: -1, node: root }];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const m = line.match(/^((?:│ {2}| {3})*(?:├─ |└─ ))?(.*)$/u);
    const prefix = m[1] || "";
    const depth = [...prefix].length / 3;
    const node = { line, body: m[2], prefix, children: [] };
    while (stack[stack.length - 1].depth >= depth) stack.pop();
    stack[stack.length - 1].node.children.push(node);
    stack.push({ depth, node });
  }
  const lineEl = (n) => {
    const parts = n.body.split(/(\[IN [0-9.]+[^\]]*\]|\[OUT\])/);
    return el("span", { class: "line" }, el("span", { class: "prefix", "aria-hidden": "true" }, n.prefix),
      parts.map((s) => /^\[(IN|OUT)/.test(s) ? el("span", { class: s.startsWith("[IN") ? "tag in" : "tag out" }, s) : s));
  };
  const build = (nodes) => el("ul", { role: "group" }, nodes.map((n) => n.children.length
    ? el("li", { role: "treeitem", "aria-expanded": "true" }, el("details", { open: true }, el("summary", {}, lineEl(n)), build(n.children)))
    : el("li", { role: "treeitem" }, lineEl(n))));
  const tree = build(root.children);
  tree.setAttribute("role", "tree");
  tree.setAttribute("aria-label", "Proof");
  tree.classList.add("proof");
  tree.addEventListener("toggle", (e) => {
    const li = e.target.parentElement;
    if (li) li.setAttribute("aria-expanded", e.target.open ? "true" : "false");
  }, true);
  return tree;
}

function graphSvg(graph) {
  const nodes = graph.nodes;
  if (!nodes.length) return el("p", { class: "empty" }, "No reasons.");
  const levels = new Map();
  for (const n of nodes) { if (!levels.has(n.level)) levels.set(n.level, []); levels.get(n.level).push(n); }
  const order = [...levels.keys()].sort((a, b) => b - a); // what rests on it on top
  const charW = 6.6, padX = 12, gap = 18, rowH = 74, boxH = 30;
  const text = (n) => (n.label.length > 46 ? n.label.slice(0, 45) + "…" : n.label);
  let width = 0;
  for (const l of order) {
    const w = levels.get(l).reduce((s, n) => s + text(n).length * charW + 2 * padX + gap, -gap);
    width = Math.max(width, w);
  }
  width += 40;
  const pos = new Map();
  order.forEach((l, row) => {
    const list = levels.get(l);
    const w = list.reduce((s, n) => s + text(n).length * charW + 2 * padX + gap, -gap);
    let x = (width - w) / 2;
    for (const n of list) {
      const nw = text(n).length * charW + 2 * padX;
      pos.set(n.id, { x, y: 20 + row * rowH, w: nw });
      x += nw + gap;
    }
  });
  const height = 20 + order.length * rowH - (rowH - boxH) + 20;
  const defs = svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" },
    svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#6b7280" })));
  const edges = graph.edges.filter((e) => pos.has(e.from) && pos.has(e.to)).map((e) => {
    const a = pos.get(e.from), b = pos.get(e.to);
    const x1 = a.x + a.w / 2, y1 = a.y, x2 = b.x + b.w / 2, y2 = b.y + boxH; // evidence below, up to its conclusion
    const [sy, ey] = a.y > b.y ? [y1, y2] : [a.y + boxH, b.y];
    const my = (sy + ey) / 2;
    return svg("path", { d: `M ${x1} ${sy} C ${x1} ${my}, ${x2} ${my}, ${x2} ${ey}`, class: e.dashed ? "edge dashed" : "edge", "marker-end": "url(#arrow)" });
  });
  const boxes = nodes.map((n) => {
    const p = pos.get(n.id);
    const shape = svg("rect", { x: p.x, y: p.y, width: p.w, height: boxH, rx: n.kind === "step" ? 15 : 6,
                                class: `node ${n.kind}${n.dashed ? " dashed" : ""}${n.root ? " root" : ""}` });
    const label = svg("text", { x: p.x + p.w / 2, y: p.y + boxH / 2 + 4, "text-anchor": "middle", class: "label" }, text(n));
    const g = svg("g", {}, svg("title", {}, n.label), shape, label);
    if (n.kind === "belief" && !n.root) {
      const a = svg("a", { href: beliefHref(n.key), "aria-label": n.label }, g);
      return a;
    }
    return g;
  });
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "graph", role: "group",
                      "aria-label": "The beliefs around this one: reasons below, what rests on it above; OUT dashed" },
    defs, edges, boxes);
}

// the validity of each value the key has had (kb.timeline): a bar from when it starts to hold
// to its effective end (its own, or its successor's start; open ones run to the right edge)
const day = (t) => {
  if (t === null || t === undefined) return "…";
  const iso = new Date(t * 1000).toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.replace(/\.\d+Z$/, "Z");
};
function timelineView(entries, now) {
  if (!entries.length) return el("p", { class: "empty" }, "No values.");
  const starts = entries.map((e) => e.valid_from).filter((t) => t !== null);
  const ends = entries.map((e) => e.valid_until).filter((t) => t !== null);
  const lo = starts.length ? Math.min(...starts) : now;
  const hi = Math.max(now, ...ends, ...starts) + 1;
  const left = 220, width = 760, rowH = 28, right = 20;
  const x = (t) => left + ((t - lo) / (hi - lo || 1)) * (width - left - right);
  const rows = entries.map((e, i) => {
    const y = 10 + i * rowH;
    const x1 = e.valid_from === null ? left : x(e.valid_from);
    const x2 = e.valid_until === null ? width - right : x(e.valid_until);
    const open = e.valid_until === null ? " open" : "";
    const title = `${e.value_text}: ${day(e.valid_from)} → ${e.valid_until === null ? "now" : day(e.valid_until)} (${e.status})`;
    return svg("g", { class: `span ${e.status}`, "data-status": e.status },
      svg("title", {}, title),
      svg("text", { x: left - 8, y: y + 15, "text-anchor": "end", class: "label" },
        e.value_text.length > 30 ? e.value_text.slice(0, 29) + "…" : e.value_text),
      svg("rect", { x: x1, y, width: Math.max(x2 - x1, 3), height: rowH - 10, rx: 3, class: `bar ${e.status}${open}` }));
  });
  const axisY = 10 + entries.length * rowH;
  const axis = svg("g", { class: "axis" },
    svg("line", { x1: left, y1: axisY, x2: width - right, y2: axisY }),
    svg("text", { x: left, y: axisY + 16, "text-anchor": "start", class: "label" }, day(lo)),
    svg("text", { x: width - right, y: axisY + 16, "text-anchor": "end", class: "label" }, "now " + day(now)));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${axisY + 24}`, width, height: axisY + 24, class: "timeline",
                             role: "img", "aria-label": "When each value held: one bar per value, oldest first" }, rows, axis);
  const list = table("Timeline", ["Value", "Valid from", "Valid until", "Status", "Label", "Sources", "Superseded by"],
    entries.map((e) => [el("span", { class: "value" }, e.value_text), day(e.valid_from),
      e.valid_until === null ? "open" : day(e.valid_until), el("span", { class: `validity ${e.status}` }, e.status),
      badge(e.label, e.confidence), e.sources.join(", "), e.superseded_by_text || ""]));
  return el("div", { class: "timeline-panel" }, el("div", { class: "scroll" }, chart), list);
}

async function belief(route) {
  const key = route.arg;
  const data = await api(`/api/belief?key=${encodeURIComponent(key)}`);
  const values = table("Values", ["Value", "Label", "Source", "Why not held"], data.values.map((v) => [
    el("span", { class: "value" }, v.value_text), badge(v.label, v.confidence),
    v.source && v.source.includes(":") ? el("a", { href: sourceHref(v.source) }, v.source) : v.source, v.why || ""]));
  const checks = data.what_to_check === null ? el("p", { class: "empty" }, "An open conflict: settle it first (what to check ranks one held value).") : table("What to check next", ["Source", "Belief", "Gain", "Needed", "Its confidence", "Expired"],
    data.what_to_check.map((c) => [el("a", { href: sourceHref(c.source) }, c.source),
      el("a", { href: beliefHref(c.key) }, c.key), el("strong", {}, `+${num(c.gain)}`), num(c.needed), conf(c.confidence), c.expired ? "yes" : "no"]),
    "Nothing stale under it: no premise to check.");
  const history = data.history === null
    ? el("p", { class: "empty" }, "No journal: this base keeps no history (see the journal in docs/ui.md).")
    : table("History", ["#", "When", "What", "Value", "Source", "Reason", "Label"], data.history.map((h) => [
        h.seq, when(h.time), h.operation, h.value === undefined ? "" : JSON.stringify(h.value), h.source || "", h.reason || "",
        h.label ? badge(h.label, h.confidence) : ""]), "No entries yet.");
  const srcs = data.sources.length ? el("ul", { class: "chips" }, data.sources.map((s) => el("li", {}, el("a", { href: sourceHref(s) }, s)))) : el("p", { class: "empty" }, "No sources.");
  return el("div", {},
    el("p", { class: "crumbs" }, el("a", { href: "#/beliefs" }, "Beliefs"), " / "),
    el("h1", { class: "key" }, key),
    data.values.filter((v) => v.label === "IN").length > 1
      ? el("p", { class: "notice", role: "note" }, "Open conflict: more than one value is held. ",
          el("a", { href: "#/problems" }, "See the conflicts")) : null,
    section("Values", values),
    data.timeline ? section("Timeline", el("p", { class: "muted" }, "When each value holds in the world (valid time): a newer value supersedes an older one from its start."),
      timelineView(data.timeline, data.at)) : null,
    section("Proof", el("p", { class: "muted" }, "As explain prints it; fold a reason to hide what is under it."), el("div", { class: "scroll" }, proofTree(data.text))),
    section("Around it", el("p", { class: "muted" }, "Reasons below, what rests on it above. OUT beliefs, invalid steps and expired premises are dashed."),
      el("div", { class: "scroll" }, graphSvg(data.graph))),
    section("What to check next", checks),
    section("Sources in its proof", srcs),
    section("History", history));
}

// -- conflicts, faded, expired ------------------------------------------------------------
async function problems() {
  const data = await api("/api/problems");
  const conflicts = data.conflicts.length ? el("div", {}, data.conflicts.map((c) => el("div", { class: "conflict" },
    el("h3", {}, c.nogood ? `nogood ${c.key}` : el("a", { href: beliefHref(c.key) }, c.key)),
    table(`Candidates for ${c.key}`, ["Belief", "Value", "Confidence", "Sources"], c.candidates.map((x) => [
      el("a", { href: beliefHref(x.key) }, x.key), x.value_text, conf(x.confidence),
      el("span", {}, x.sources.flatMap((s, i) => [i ? ", " : "", el("a", { href: sourceHref(s) }, s)]))]))))) : el("p", { class: "empty" }, "No open conflicts.");
  const faded = table("Faded", ["Belief", "Value", "Confidence", "Sources"], data.faded.map((f) => [
    el("a", { href: beliefHref(f.key) }, f.key), f.value_text, conf(f.confidence), f.sources.join(", ")]), "Nothing has faded.");
  const expired = table("Expired", ["Belief", "Value", "Expired at", "Sources"], data.expired.map((x) => [
    el("a", { href: beliefHref(x.key) }, x.key), x.value_text, when(x.expired_at), x.sources.join(", ")]), "Nothing has expired.");
  return el("div", {}, el("h1", {}, "Conflicts, faded and expired"),
    section(`Open conflicts (${data.conflicts.length})`, conflicts),
    section(`Faded below ${conf(data.threshold)} (${data.faded.length})`, faded),
    section(`Expired (${data.expired.length})`, expired));
}

// -- sources ------------------------------------------------------------------------------
const tierBadge = (t) => (t ? el("span", { class: `tier ${t}` }, t) : "–");

async function sources() {
  const data = await api("/api/sources");
  return el("div", {}, el("h1", {}, "Sources"), section("Reliability and routing",
    table("Sources", ["Source", "Reliability", "Prior", "Right", "Wrong", "Routing tier", "Why"], data.sources.map((s) => [
      el("a", { href: sourceHref(s.source) }, s.source), el("strong", {}, num(s.reliability)), num(s.prior), s.right, s.wrong,
      tierBadge(s.tier), el("span", { class: "muted" }, s.route_why || "")]), "No sources yet.")));
}

function plot(series, prior) {
  if (!series.length) return el("p", { class: "empty" }, "No outcomes recorded: the reliability is the prior.");
  const W = 720, H = 260, L = 48, R = 16, T = 16, B = 36;
  const times = series.map((s) => s.at);
  const byTime = Math.max(...times) > Math.min(...times);
  const xs = series.map((s, i) => (byTime ? s.at : i));
  const x0 = Math.min(...xs), x1 = Math.max(...xs) === x0 ? x0 + 1 : Math.max(...xs);
  const ys = series.map((s) => s.reliability).concat([prior]);
  const lo = Math.max(0, Math.floor((Math.min(...ys) - 0.05) * 10) / 10), hi = 1;
  const X = (v) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const Y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const grid = [];
  for (let v = lo; v <= hi + 1e-9; v += 0.1) {
    grid.push(svg("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), class: "grid" }),
      svg("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end", class: "tick" }, v.toFixed(1)));
  }
  const pts = series.map((s, i) => [X(xs[i]), Y(s.reliability)]);
  const line = svg("polyline", { points: [[X(x0), Y(prior)], ...pts].map((p) => p.join(",")).join(" "), class: "series" });
  const dots = series.map((s, i) => svg("circle", { cx: pts[i][0], cy: pts[i][1], r: 4, class: `point ${s.correct ? "right" : "wrong"}` },
    svg("title", {}, `${when(s.at)}: ${s.correct ? "right" : "wrong"}, reliability ${num(s.reliability)}`)));
  const axis = svg("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", class: "tick" },
    byTime ? `${when(x0)} → ${when(x1)}` : "outcomes, in order");
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "plot", role: "img",
                      "aria-label": `Reliability after each of ${series.length} outcomes, from ${num(prior)} to ${num(series[series.length - 1].reliability)}` },
    grid, line, dots, axis);
}

async function source(route) {
  const s = await api(`/api/source?name=${encodeURIComponent(route.arg)}`);
  const stats = el("dl", { class: "stats" },
    el("div", {}, el("dt", {}, "Reliability now"), el("dd", {}, num(s.reliability))),
    el("div", {}, el("dt", {}, "Prior"), el("dd", {}, num(s.prior))),
    el("div", {}, el("dt", {}, "Right"), el("dd", {}, s.right)),
    el("div", {}, el("dt", {}, "Wrong"), el("dd", {}, s.wrong)),
    el("div", {}, el("dt", {}, "Routing tier"), el("dd", {}, tierBadge(s.tier))));
  const outcomes = table("Outcomes", ["When", "Verdict", "Belief", "Reason", "Topic"], s.outcomes.map((o) => [
    when(o.at), el("span", { class: o.correct ? "ok" : "bad" }, o.correct ? "right" : "wrong"),
    o.key ? el("a", { href: beliefHref(o.key) }, o.key) : "", o.reason || "", o.topic || ""]), "No outcomes.");
  return el("div", {},
    el("p", { class: "crumbs" }, el("a", { href: "#/sources" }, "Sources"), " / "),
    el("h1", {}, s.source), el("div", { class: "card" }, stats, s.route_why ? el("p", { class: "muted" }, s.route_why) : null),
    section("Reliability over time", el("div", { class: "scroll" }, plot(s.series, s.prior))),
    section(`Outcomes (${s.outcome_count})`, outcomes));
}

// -- promises -----------------------------------------------------------------------------
async function promises() {
  const data = await api("/api/promises");
  const answers = (list) => table("Answers", ["Belief", "Value", "Verdict", "Signal", "Threshold", "Why"], list.map((a) => [
    el("a", { href: beliefHref(a.key) }, a.key), JSON.stringify(a.value),
    el("span", { class: a.status === "ok" ? "ok" : "bad" }, a.status === "ok" ? "given" : "withheld"),
    num(a.signal_value), a.threshold === null ? "∞" : num(a.threshold), a.why]), "No answers under it yet.");
  const cards = data.promises.map((p) => section(`Promise “${p.name}”`,
    p.groups.map((g) => el("div", { class: "promise" },
      g.group === null ? null : el("h3", {}, `group ${JSON.stringify(g.group)}`),
      el("p", { class: "statement" }, g.statement || ""),
      el("dl", { class: "stats" },
        el("div", {}, el("dt", {}, "Threshold"), el("dd", {}, g.threshold === null ? "∞" : num(g.threshold))),
        el("div", {}, el("dt", {}, "Method"), el("dd", {}, g.method)),
        el("div", {}, el("dt", {}, g.max_error !== null ? "Max error" : "Max risk"), el("dd", {}, num(g.max_error !== null ? g.max_error : g.max_risk))),
        el("div", {}, el("dt", {}, "Examples"), el("dd", {}, g.n))),
      g.warnings.length ? el("ul", { class: "warn" }, g.warnings.map((w) => el("li", {}, w))) : null)),
    el("h3", {}, "Answers given or withheld"), answers(p.answers)));
  return el("div", {}, el("h1", {}, "Promises"),
    cards.length ? cards : section("No promises", el("p", { class: "empty" }, "This base has no promise attached (kb.guarantee).")),
    data.unguarded.length ? section("Answers without a promise", answers(data.unguarded)) : null);
}

// -- header and live ----------------------------------------------------------------------
async function header() {
  try {
    const s = await api("/api/summary");
    statusBox.replaceChildren(el("span", {}, `${s.held.toLocaleString()} held of ${s.beliefs.toLocaleString()}`),
      el("span", { class: "sep", "aria-hidden": "true" }, "·"), el("span", {}, `at ${when(s.at)}`),
      el("span", { class: "sep", "aria-hidden": "true" }, "·"),
      el("span", { id: "live", class: s.live ? "live on" : "live" }, s.live ? "live" : "snapshot"));
  } catch (err) { statusBox.textContent = "server unreachable"; }
}

let pending = null;
function followChanges() {
  if (!window.EventSource) return;
  const events = new EventSource("/api/events");
  events.addEventListener("change", () => {
    clearTimeout(pending);
    pending = setTimeout(() => { header(); render(true); }, 150);
  });
}

header();
render(true);
followChanges();
