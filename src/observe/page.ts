/**
 * The observer's one page: static HTML with its script inline, no framework and no build step. It comes
 * with a snapshot in it, drawn at once (the first paint is never empty), then opens `/events`
 * (server-sent events; the browser reconnects by itself) and redraws from each snapshot. Every
 * value is set as text (never parsed as HTML), and the sparklines are SVG polylines drawn here.
 */
const STYLE = `
:root { color-scheme: light dark; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --dim: #6e7781; --line: #d0d7de88; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5rem 2rem; }
header { display: flex; gap: 1rem; align-items: baseline; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.2rem; } h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
#live { font-size: .85rem; } #live.on { color: var(--ok); } #live.off { color: var(--bad); }
.tree { list-style: none; padding-left: 0; } .tree ul { list-style: none; padding-left: 1.5rem; border-left: 1px solid var(--line); margin: .25rem 0 .25rem .4rem; }
.server { display: grid; grid-template-columns: minmax(14rem, 1fr) repeat(3, 11rem); gap: .25rem 1rem; align-items: center; padding: .4rem 0; border-bottom: 1px solid var(--line); }
.state { font-weight: 600; } .state.up { color: var(--ok); } .state.restarting, .state.starting { color: var(--warn); } .state.down, .state.stopped { color: var(--bad); }
.muted, .facts { color: var(--dim); font-size: .85rem; } .spark { display: flex; flex-direction: column; font-size: .75rem; color: var(--dim); }
.spark svg { width: 10rem; height: 1.8rem; } .spark polyline { fill: none; stroke: currentColor; stroke-width: 1.2; } .spark circle { fill: currentColor; } .spark .p50 { color: #0969da; } .spark .p99 { color: #8250df; }
.open { color: var(--bad); font-weight: 600; } .half-open { color: var(--warn); }
table { border-collapse: collapse; font-size: .85rem; } td, th { text-align: left; padding: .15rem .6rem .15rem 0; vertical-align: top; }
td.error, td.failed { color: var(--bad); } td.refused, .paused, .stale { color: var(--warn); } code { font-size: .8rem; word-break: break-all; }
pre.code { font-size: .8rem; margin: 0; white-space: pre-wrap; max-height: 12rem; overflow: auto; } .totals { margin: .2rem 0; }
.run { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .8rem; margin-bottom: .8rem; }
.msg { margin: .3rem 0; padding: .3rem .6rem; border-radius: 6px; max-width: 60rem; white-space: pre-wrap; }
.msg.user { background: #0969da18; } .msg.assistant { background: #1a7f3718; } .msg.tool { background: #9a670018; } .msg.system { background: #6e778118; }
.role { font-size: .75rem; font-weight: 600; color: var(--dim); text-transform: uppercase; }
.member.gone td { color: var(--dim); text-decoration: line-through; } .member .alive { color: var(--ok); font-weight: 600; } .member.gone .alive { color: var(--bad); text-decoration: none; }
.member td.servers { text-decoration: none; } .fleet-server { white-space: nowrap; margin-right: 1rem; }
.thinking { font-style: italic; color: var(--dim); } .tool_use, .tool_result { font-family: ui-monospace, monospace; font-size: .8rem; }
`;

const SCRIPT = `
const $ = (id) => document.getElementById(id);
function h(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value; else if (key.startsWith("data-")) node.setAttribute(key, String(value)); else node[key] = value;
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) node.append(child instanceof Node ? child : String(child));
  return node;
}
const SVG = "http://www.w3.org/2000/svg";
function spark(label, values, cls, unit) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 20");
  svg.setAttribute("preserveAspectRatio", "none");
  const present = values.filter((v) => v !== null);
  const max = Math.max(1e-9, ...present);
  // One polyline per run of seconds with calls (a gap is a second without any), a dot for a lone one.
  let run = [];
  const flush = () => {
    if (run.length === 1) {
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", run[0][0]); dot.setAttribute("cy", run[0][1]); dot.setAttribute("r", "1.2");
      svg.append(dot);
    } else if (run.length > 1) {
      const line = document.createElementNS(SVG, "polyline");
      line.setAttribute("points", run.map((p) => p.join(",")).join(" "));
      svg.append(line);
    }
    run = [];
  };
  values.forEach((v, i) => v === null ? flush() : run.push([(i * 100 / Math.max(1, values.length - 1)).toFixed(1), (19 - (v / max) * 18).toFixed(1)]));
  flush();
  const last = [...values].reverse().find((v) => v !== null);
  return h("div", { class: "spark " + cls }, h("span", {}, label + ": " + (last === undefined ? "–" : (unit ? fmt(last) : String(last)) + unit)), svg);
}
const fmt = (n) => n >= 100 ? Math.round(n).toString() : n >= 10 ? n.toFixed(1) : n.toFixed(2);
const time = (at) => new Date(at).toLocaleTimeString();
function session(s) {
  if (!s) return h("li", { class: "muted" }, "no session yet");
  const what = s.transport === "stdio" ? "process" + (s.pid !== undefined ? " pid " + s.pid : "") : s.session ? "HTTP session" : "connection";
  const bits = [s.transport, s.era ? s.era + " era" : undefined, s.protocolVersion, s.server].filter(Boolean).join(" · ");
  return h("li", { class: s.live ? "" : "muted", "data-pid": s.live ? s.pid : undefined }, what + " — " + bits + (s.live ? "" : " (last seen)"));
}
function server(s) {
  const exit = s.lastExit ? "last exit " + time(s.lastExit.at) + ": " + s.lastExit.reason : undefined;
  const limited = s.fleetLimit !== undefined || s.waiting > 0;
  const facts = ["restarts " + s.restarts, "in flight " + s.inFlight, s.queued ? "queued " + s.queued : undefined, limited ? "waiting " + s.waiting : undefined, s.refused ? "refused here " + s.refused : undefined, "calls " + s.stats.total, s.stats.errors ? "errors " + s.stats.errors : undefined, s.fallbacks.length ? "fallbacks " + s.fallbacks.join(", ") : undefined].filter(Boolean).join(" · ");
  return h("li", { class: "server", "data-server": s.name, "data-state": s.state, "data-restarts": s.restarts },
    h("div", {},
      h("strong", {}, s.name), " ", h("span", { class: "state " + s.state }, s.state), " ",
      h("span", { class: "circuit " + s.circuit }, "breaker " + s.circuit), s.paused ? h("span", { class: "paused" }, " · paused") : "",
      h("div", { class: "facts" }, facts),
      exit && h("div", { class: "facts exit" }, exit),
      s.downReason && h("div", { class: "facts" }, "down: " + s.downReason),
      h("ul", {}, session(s.session))),
    spark("calls/s", s.stats.rate, "rate", ""), spark("p50", s.stats.p50, "p50", " ms"), spark("p99", s.stats.p99, "p99", " ms"));
}
function block(b) {
  if (b.type === "text") return h("div", { class: "text" }, b.text);
  if (b.type === "thinking") return h("div", { class: "thinking" }, "thinking: " + b.text);
  if (b.type === "tool_use") {
    const code = b.name.endsWith("run_code") && b.input && typeof b.input.code === "string" ? b.input.code : undefined;
    if (code !== undefined) return h("div", { class: "tool_use" }, "→ " + b.name, h("pre", { class: "code" }, code));
    return h("div", { class: "tool_use" }, "→ " + b.name + " " + (typeof b.input === "string" ? b.input : JSON.stringify(b.input)));
  }
  const text = (b.content || []).map((c) => c.type === "text" ? c.text : "[" + c.type + "]").join("\\n");
  return h("div", { class: "tool_result" + (b.isError ? " failed" : "") }, (b.isError ? "✗ " : "← ") + text);
}
function run(r) {
  return h("div", { class: "run", "data-run": r.id },
    h("div", {}, h("strong", {}, r.label), " · ", r.state, " · turn " + r.turns + " · started " + time(r.startedAt), r.error ? " · " + r.error : ""),
    r.messages.map((m) => h("div", { class: "msg " + m.role }, h("div", { class: "role" }, m.role), m.content.map(block))));
}
function drawGateway(gateway, at) {
  $("gateway-section").hidden = !gateway;
  if (!gateway) return;
  $("gateway-note").textContent = gateway.total + " held" + (gateway.total > gateway.sessions.length ? " · the " + gateway.sessions.length + " most recently active shown" : "");
  $("gateway").replaceChildren(...gateway.sessions.map((s) => h("tr", { "data-gateway-session": s.id },
    h("td", {}, h("code", {}, s.id)), h("td", {}, s.client ?? ""), h("td", {}, s.principal ?? ""), h("td", {}, String(s.calls)), h("td", {}, time(s.startedAt)), h("td", {}, ago(Math.max(0, at - s.lastActiveAt)) + " ago"))));
}
function draw(snap) {
  drawFleet(snap.fleet, snap.at);
  drawGateway(snap.gateway, snap.at);
  $("servers").replaceChildren(h("li", {}, h("strong", {}, "board"), h("span", { class: "muted" }, " · " + snap.servers.length + " servers · updated " + time(snap.at)), h("ul", {}, snap.servers.map(server))));
  $("lifecycle").replaceChildren(...snap.lifecycle.slice().reverse().map((e) => h("tr", {}, h("td", {}, time(e.at)), h("td", {}, e.server), h("td", {}, e.event), h("td", {}, e.detail))));
  $("calls").replaceChildren(...snap.calls.slice(-20).reverse().map((c) => h("tr", {},
    h("td", {}, time(c.at)), h("td", {}, c.name), h("td", {}, fmt(c.ms) + " ms"), h("td", { class: c.outcome }, c.outcome + (c.error ? ": " + c.error : "")),
    h("td", {}, !snap.captureToolContent ? "" : c.code !== undefined ? h("pre", { class: "code" }, c.code) : h("code", {}, c.args ?? "")))));
  $("args-note").hidden = snap.captureToolContent;
  $("runs").replaceChildren(...(snap.runs.length ? snap.runs.slice().reverse().map(run) : [h("p", { class: "muted" }, "No agent run yet: pass observer.agentEvents() as runAgent's events.")]));
}
const ago = (ms) => ms < 10000 ? (ms / 1000).toFixed(1) + " s" : ms < 120000 ? Math.round(ms / 1000) + " s" : Math.round(ms / 60000) + " min";
function fleetServer(s) {
  const rate = s.callsPerSecond + " calls/s" + (s.p50 === null ? "" : " · p50 " + fmt(s.p50) + " ms · p99 " + fmt(s.p99) + " ms");
  return h("div", { class: "fleet-server", "data-fleet-server": s.name, "data-state": s.state },
    h("strong", {}, s.name), " ", h("span", { class: "state " + s.state }, s.state), " · in flight " + s.inFlight + " · " + rate + (s.restarts ? " · restarts " + s.restarts : "") + (s.circuit !== "closed" ? " · breaker " + s.circuit : ""));
}
function member(m, stale) {
  return h("tr", { class: "member" + (m.alive ? "" : " gone"), "data-member": m.id, "data-alive": m.alive, "data-pid": m.pid },
    h("td", {}, h("code", {}, m.id), m.self ? h("span", { class: "muted" }, " (this process)") : ""),
    h("td", {}, m.host ?? "–"), h("td", {}, m.pid ?? "–"), h("td", {}, m.uptimeMs === undefined ? "–" : ago(m.uptimeMs)),
    h("td", {}, ago(m.lastBeatAgoMs + stale) + " ago"), h("td", { class: stale && m.alive ? "stale" : "alive", "data-stale": stale > 0 }, stale && m.alive ? "stale" : m.alive ? "live" : "gone"),
    h("td", { class: "servers" }, m.servers ? m.servers.map(fleetServer) : h("span", { class: "muted" }, "no summary")));
}
// Fleet-wide, per server, over the live members: calls/s, permits held (calls in flight) against the
// cap, calls waiting. While Redis cannot be read the members are as last read: stale, not live.
function totals(fleet) {
  const by = new Map();
  for (const m of fleet.members) for (const s of (m.alive ? m.servers || [] : [])) {
    const t = by.get(s.name) || { name: s.name, rate: 0, held: 0, waiting: 0, limit: undefined, open: 0, paused: 0 };
    t.rate += s.callsPerSecond; t.held += s.inFlight; t.waiting += s.waiting || 0;
    if (s.fleetLimit !== undefined) t.limit = s.fleetLimit;
    if (s.circuit === "open") t.open++;
    if (s.paused) t.paused++;
    by.set(s.name, t);
  }
  return [...by.values()].map((t) => h("div", { class: "totals", "data-total": t.name, "data-rate": t.rate, "data-held": t.held, "data-waiting": t.waiting },
    h("strong", {}, t.name), " · " + t.rate + " calls/s · permits held " + t.held + (t.limit !== undefined ? " of " + t.limit : "") + " · waiting " + t.waiting + (t.open ? " · breaker open in " + t.open : "") + (t.paused ? " · paused in " + t.paused : "")));
}
function drawFleet(fleet, at) {
  $("fleet-section").hidden = !fleet;
  if (!fleet) return;
  const stale = fleet.error && fleet.readAt ? Math.max(1, at - fleet.readAt) : fleet.error ? 1 : 0;
  const live = fleet.members.filter((m) => m.alive).length;
  const gone = fleet.members.length - live;
  $("fleet-note").textContent = (stale ? "stale: " : "") + live + " live, " + gone + " gone" + (fleet.readAt ? " · read " + time(fleet.readAt) : " · not read yet") + (fleet.error ? " · " + fleet.error : "");
  $("fleet-totals").replaceChildren(...totals(fleet));
  $("fleet").replaceChildren(...fleet.members.map((m) => member(m, stale)));
}
function connect() {
  const source = new EventSource("events");
  source.onopen = () => { $("live").textContent = "● live"; $("live").className = "on"; };
  source.onerror = () => { $("live").textContent = "● reconnecting"; $("live").className = "off"; };
  source.onmessage = (event) => draw(JSON.parse(event.data));
}
draw(JSON.parse($("first").textContent));
connect();
`;

/** The page, with `snapshot` (the JSON a page is sent) in it for its first paint; "<" escaped, so no text in it can end the script block. */
export const page = (snapshot: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcp-switchboard observer</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>mcp-switchboard observer</h1><span id="live" class="off">● connecting</span></header>
<h2>Supervision tree</h2>
<ul id="servers" class="tree"></ul>
<section id="fleet-section" hidden>
<h2>Fleet <span id="fleet-note" class="muted"></span></h2>
<div id="fleet-totals"></div>
<table><thead><tr><th>member</th><th>host</th><th>pid</th><th>uptime</th><th>heartbeat</th><th></th><th>servers</th></tr></thead><tbody id="fleet"></tbody></table>
</section>
<section id="gateway-section" hidden>
<h2>Gateway sessions <span id="gateway-note" class="muted"></span></h2>
<table><thead><tr><th>session</th><th>client</th><th>principal</th><th>calls</th><th>started</th><th>last active</th></tr></thead><tbody id="gateway"></tbody></table>
</section>
<h2>Lifecycle</h2>
<table><tbody id="lifecycle"></tbody></table>
<h2>Recent calls <span class="muted">(the last 20)</span></h2>
<p id="args-note" class="muted">Arguments are shown only with captureToolContent.</p>
<table><tbody id="calls"></tbody></table>
<h2>Agent runs</h2>
<div id="runs"></div>
<script id="first" type="application/json">${snapshot.replaceAll("<", "\\u003c")}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
