// ARK's page: plain JS and SVG, no build step, nothing from a CDN. Graph text is always set as
// text (never as HTML): node names and passages are data.
"use strict";

const state = { label: null, run: null, abort: null, graph: { nodes: new Map(), edges: new Map() } };
const $ = (id) => document.getElementById(id);
const svgNS = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, text) {
  const node = tag.startsWith("svg:") ? document.createElementNS(svgNS, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function headers(extra = {}) {
  const token = sessionStorage.getItem("ark-token");
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headers(options.headers || {}) });
  if (response.status === 401) {
    $("token-btn").hidden = false;
    throw new Error("this server needs its token: click 'token…'");
  }
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || response.statusText);
  return body;
}

function status(text) { $("status").textContent = text; }
function label() { return state.label; }
const enc = encodeURIComponent;

// ---- snapshots and schema ----
async function loadSnapshots() {
  const snapshots = await api("/api/snapshots");
  const select = $("snapshot");
  select.replaceChildren(...snapshots.map((s) => el("option", { value: s.label }, `${s.label} (${s.num_nodes.toLocaleString()} nodes)`)));
  state.snapshots = Object.fromEntries(snapshots.map((s) => [s.label, s]));
  selectSnapshot(snapshots[0].label);
}

function selectSnapshot(value) {
  state.label = value;
  $("snapshot").value = value;
  const s = state.snapshots[value];
  $("schema").textContent = `${Object.keys(s.node_types).length} node types · ${Object.keys(s.relations).length} relations`;
  $("docs-note").textContent = s.documents
    ? "Upload a .txt, .md, .jsonl or .pdf: only it is extracted, and the graph is swapped in when done."
    : "This graph was not built from documents; pick one built by `ark graph extract` to add documents.";
  $("upload-btn").disabled = !s.documents;
  clearGraph();
  if (s.documents) loadDocuments();
  else $("documents").replaceChildren();
}

// ---- ask (agents, SSE), answer (SARG), plan (GRASP) ----
function settings() {
  return {
    question: $("question").value, snapshot: label(), model: $("model").value || "rules",
    agents: Number($("agents").value), max_steps: Number($("steps").value),
    temperature: Number($("temperature").value),
  };
}

function clearResults() {
  for (const id of ["answers", "trace", "chains", "passages"]) $(id).replaceChildren();
  $("answer-text").textContent = "";
}

async function ask() {
  clearResults();
  const mode = $("mode").value;
  $("ask-btn").disabled = true; $("stop-btn").disabled = false;
  state.abort = new AbortController();
  try {
    if (mode === "ask") await askAgents();
    else if (mode === "answer") await answerSarg();
    else await planGrasp();
  } catch (error) {
    if (error.name !== "AbortError") status(`error: ${error.message}`);
  } finally {
    $("ask-btn").disabled = false; $("stop-btn").disabled = true; state.run = null;
  }
}

async function askAgents() {
  status("agents are exploring…");
  const response = await fetch("/api/ask", {
    method: "POST", signal: state.abort.signal, body: JSON.stringify(settings()),
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
  });
  if (!response.ok) throw new Error((await response.json()).detail);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      onEvent(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
    }
  }
}

function onEvent(block) {
  const lines = Object.fromEntries(block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]));
  const data = JSON.parse(lines.data);
  if (lines.event === "start") state.run = data.run_id;
  else if (lines.event === "turn") addTurn(data);
  else if (lines.event === "result") showAnswers(data);
  else if (lines.event === "error") status(`stopped: ${data.detail}`);
}

function addTurn(turn) {
  const who = `agent ${turn.agent_index + 1} · step ${turn.step}`;
  let text;
  let kind = turn.kind;
  if (turn.kind === "tool") text = `${turn.tool_name}(${short(turn.arguments || "", 120)}) → ${short((turn.observation || "").split("\n")[0], 140)}`;
  else if (turn.kind === "model") text = turn.content ? `says: ${turn.content}` : `calls ${turn.tool_calls ?? 0} tool(s)`;
  else if (turn.kind === "done") text = `stopped: ${turn.content}`;
  else text = `nudged: ${turn.content || ""}`;
  if (turn.error) { kind = "error"; text += ` — ${turn.error}`; }
  const item = el("li", { class: `turn ${kind}` }, `${who}: ${text}`);
  $("trace").append(item);
  item.scrollIntoView({ block: "nearest" });
}

function short(text, most) { return text.length > most ? `${text.slice(0, most)}…` : text; }

function showAnswers(result) {
  status(`${result.answers.length} answers in ${result.wall_s} s${result.record ? ` · recorded in ${result.record}` : ""}`);
  $("answers").replaceChildren(...result.answers.map((a) => {
    const item = el("li", { class: "answer", "data-id": a.id }, `${a.name} `);
    item.append(el("span", { class: "dim" }, `[${a.id}] ${a.type}`), el("span", { class: "votes" }, `${a.votes} vote${a.votes === 1 ? "" : "s"}`));
    if (a.reason) item.append(el("span", { class: "reason" }, a.reason));
    item.addEventListener("click", () => focusNode(a.id));
    return item;
  }));
}

async function answerSarg() {
  status("SARG is building chains…");
  const s = settings();
  const body = { question: s.question, snapshot: s.snapshot };
  if (s.model && s.model !== "rules") body.model = s.model;
  const result = await api("/api/answer", { method: "POST", signal: state.abort.signal, body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
  $("answer-text").textContent = `Answer: ${result.answer || "(none)"}`;
  status(`${result.chains.length} chains · direction ${result.direction || "-"} · model ${result.model}`);
  $("chains").replaceChildren(...result.chains.map((chain, i) => drawChain(chain, i, result.nodes)));
  $("passages").replaceChildren(...result.citations.map((id) => {
    const node = result.nodes[id];
    const item = el("li", { class: "passage", "data-id": id });
    item.append(el("strong", {}, `[${id}] ${node.name}: `), document.createTextNode(node.text.slice(0, 400)));
    item.addEventListener("click", () => focusNode(id));
    return item;
  }));
}

function drawChain(chain, index, nodes) {
  const box = el("div", { class: "chain" });
  box.append(el("div", { class: "dim" }, `chain ${index + 1} · score ${chain.score.toFixed(3)}`));
  const svg = el("svg:svg", { viewBox: `0 0 ${Math.max(1, chain.nodes.length) * 170} 64` });
  chain.nodes.forEach((id, i) => {
    const x = i * 170 + 10;
    if (i > 0) {
      const relation = chain.relations[i - 1];
      svg.append(el("svg:line", { x1: x - 40, y1: 40, x2: x, y2: 40, stroke: relationColour(relation), "stroke-width": 2, class: "edge" }));
      svg.append(el("svg:text", { x: x - 40, y: 30, "font-size": 10, fill: relationColour(relation) }, relation));
    }
    const g = el("svg:g", { class: "node", "data-id": id, transform: `translate(${x},40)` });
    g.append(el("svg:circle", { r: 7, fill: typeColour(nodes[id] ? nodes[id].type : "") }));
    g.append(el("svg:text", { x: 10, y: 4 }, (chain.labels[i] || id).slice(0, 18)));
    g.addEventListener("click", () => focusNode(id));
    svg.append(g);
  });
  box.append(svg);
  return box;
}

async function planGrasp() {
  status("planning…");
  const s = settings();
  const body = { question: s.question, snapshot: s.snapshot, model: s.model || "rules", top: 20 };
  const result = await api("/api/plan", { method: "POST", signal: state.abort.signal, body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
  status(`plan: ${result.plan.anchors.length} anchors, ${result.plan.hops.length} hops · ${result.n_cand} candidates · risk ${result.risk_level}`);
  $("trace").replaceChildren(el("li", { class: "turn" }, JSON.stringify(result.plan)));
  showAnswers({ answers: result.ranking.map((r) => ({ ...r, votes: 1, reason: `score ${r.score} = anchors ${r.anchor_score} + text ${r.relevance}` })), wall_s: result.plan_s });
}

function stop() {
  if (state.run) api(`/api/runs/${state.run}`, { method: "DELETE" }).catch(() => {});
  if (state.abort) state.abort.abort();
  status("stopped");
}

// ---- the neighbourhood view ----
function hue(text) { let h = 0; for (const c of text) h = (h * 31 + c.charCodeAt(0)) % 360; return h; }
function relationColour(relation) { return `hsl(${hue(relation)}, 65%, 42%)`; }
function typeColour(type) { return `hsl(${hue(type || "node")}, 45%, 60%)`; }

function clearGraph() {
  state.graph = { nodes: new Map(), edges: new Map(), center: null };
  $("graph").replaceChildren(); $("legend").replaceChildren(); $("node-text").textContent = "";
}

async function focusNode(id) {
  clearGraph();
  await expand(id, { x: 450, y: 280 });
}

async function expand(id, at) {
  const g = state.graph;
  const [node, around] = await Promise.all([
    api(`/api/snapshots/${enc(label())}/node?id=${enc(id)}`),
    api(`/api/snapshots/${enc(label())}/neighbors?id=${enc(id)}`),
  ]);
  const me = { ...(node.nodes[0] || { id, name: id, type: "" }), x: at.x, y: at.y };
  if (!g.nodes.has(id)) g.nodes.set(id, me);
  g.nodes.get(id).expanded = true;
  g.center = id;
  $("graph-title").textContent = `— ${me.name} [${id}] (${me.type}); click a node to expand it`;
  $("node-text").textContent = node.text;
  const fresh = around.nodes.filter((n) => !g.nodes.has(n.id)).slice(0, 24);
  const radius = g.nodes.size > 1 ? 150 : 200;
  fresh.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / Math.max(fresh.length, 1) + (g.nodes.size > 1 ? 0.3 : 0);
    g.nodes.set(n.id, { ...n, x: clamp(at.x + radius * Math.cos(angle), 30, 870), y: clamp(at.y + radius * 0.8 * Math.sin(angle), 20, 540) });
  });
  for (const e of around.edges) if (g.nodes.has(e.src) && g.nodes.has(e.dst)) g.edges.set(`${e.src}|${e.relation}|${e.dst}`, e);
  drawGraph();
}

function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); }

function drawGraph() {
  const g = state.graph;
  const svg = $("graph");
  svg.replaceChildren();
  const relations = new Set();
  for (const e of g.edges.values()) {
    const a = g.nodes.get(e.src); const b = g.nodes.get(e.dst);
    relations.add(e.relation);
    const line = el("svg:line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: relationColour(e.relation), class: "edge", "data-relation": e.relation });
    line.append(el("svg:title", {}, `${a.name} —${e.relation}→ ${b.name}`));
    svg.append(line);
  }
  for (const n of g.nodes.values()) {
    const node = el("svg:g", { class: `node${n.id === g.center ? " center" : ""}${n.expanded ? " expanded" : ""}`, "data-id": n.id, transform: `translate(${n.x},${n.y})` });
    node.append(el("svg:circle", { r: n.id === g.center ? 10 : 7, fill: typeColour(n.type) }));
    node.append(el("svg:text", { x: 11, y: 4 }, n.name.slice(0, 28)));
    node.append(el("svg:title", {}, `${n.name} [${n.id}] (${n.type})`));
    node.addEventListener("click", () => expand(n.id, { x: n.x, y: n.y }).catch((e) => status(`error: ${e.message}`)));
    svg.append(node);
  }
  $("legend").replaceChildren(...[...relations].sort().map((r) => {
    const item = el("span", {}); const swatch = el("i"); swatch.style.background = relationColour(r);
    item.append(swatch, document.createTextNode(r)); return item;
  }));
}

// ---- search as you type ----
let searchTimer = null;
function onSearchInput() {
  clearTimeout(searchTimer);
  const q = $("search").value.trim();
  if (!q) { $("search-results").hidden = true; return; }
  searchTimer = setTimeout(async () => {
    try {
      const found = await api(`/api/snapshots/${enc(label())}/search?q=${enc(q)}&k=10`);
      $("search-results").replaceChildren(...found.nodes.map((n) => {
        const item = el("li", { "data-id": n.id }, `${n.name} `);
        item.append(el("span", { class: "dim" }, `[${n.id}] ${n.type}`));
        item.addEventListener("click", () => { $("search-results").hidden = true; focusNode(n.id); });
        return item;
      }));
      $("search-results").hidden = found.nodes.length === 0;
    } catch (error) { status(`search: ${error.message}`); }
  }, 180);
}

// ---- documents ----
async function loadDocuments() {
  const docs = await api(`/api/snapshots/${enc(label())}/documents`);
  $("documents").replaceChildren(...docs.map((d) => {
    const item = el("li", { "data-id": d.id }, `${d.title} `);
    item.append(el("span", { class: "dim" }, `${d.id} · ${d.passages} passages`));
    item.addEventListener("click", () => focusNode(d.node));
    return item;
  }));
}

async function upload() {
  const file = $("doc-file").files[0];
  if (!file) { $("job-status").textContent = "choose a file first"; return; }
  const form = new FormData();
  form.append("file", file);
  $("upload-btn").disabled = true;
  try {
    let job = await api(`/api/snapshots/${enc(label())}/documents`, { method: "POST", body: form });
    $("job-progress").hidden = false;
    while (job.state === "queued" || job.state === "running") {
      $("job-status").textContent = `${job.state}: extracted ${job.done} of ${job.total || "?"} passages`;
      $("job-progress").max = Math.max(job.total, 1); $("job-progress").value = job.done;
      await new Promise((resolve) => setTimeout(resolve, 300));
      job = await api(`/api/jobs/${job.id}`);
    }
    if (job.state === "failed") throw new Error(job.error);
    const update = job.result.update;
    $("job-progress").max = 1; $("job-progress").value = 1;
    $("job-status").textContent = `done: ${update.counts.added} added, ${update.counts.changed} changed, ${update.counts.removed} removed; ${update.counts.entities_added} new entities`;
    $("new-entities").replaceChildren(...update.new_entities.map((e) => {
      const item = el("li", { "data-id": e.id }, `${e.name} `);
      item.append(el("span", { class: "dim" }, `[${e.id}] ${e.type}`));
      item.addEventListener("click", () => focusNode(e.id));
      return item;
    }));
    await loadSnapshots().then(() => selectSnapshot(job.snapshot));
  } catch (error) {
    $("job-status").textContent = `error: ${error.message}`;
  } finally {
    $("upload-btn").disabled = !state.snapshots[label()].documents;
  }
}

function askToken() {
  const token = prompt("Bearer token of this server (ark serve --token)");
  if (token) { sessionStorage.setItem("ark-token", token); $("token-btn").hidden = true; loadSnapshots(); }
}

document.addEventListener("DOMContentLoaded", () => {
  $("snapshot").addEventListener("change", (e) => selectSnapshot(e.target.value));
  $("ask-btn").addEventListener("click", ask);
  $("stop-btn").addEventListener("click", stop);
  $("question").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); ask(); } });
  $("search").addEventListener("input", onSearchInput);
  $("search").addEventListener("blur", () => setTimeout(() => { $("search-results").hidden = true; }, 250));
  $("upload-btn").addEventListener("click", upload);
  $("token-btn").addEventListener("click", askToken);
  loadSnapshots().catch((error) => status(`error: ${error.message}`));
});
