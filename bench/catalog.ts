/**
 * Catalogs: what deferred tool loading saves and what search costs, over the catalog of the query set
 * (test/catalog/queries.ts: five real npm MCP servers' tool lists, captured in
 * test/catalog/real-tools.json, plus the synthetic "acme" SaaS server; 281 tools).
 *
 * - Tokens of the tool definitions sent on turn 1 (gpt-tokenizer, o200k), eager vs deferred, for
 *   Anthropic (deferred tools are not in the prompt: the search tool and the pinned tools are), OpenAI
 *   Responses (the model first sees each namespace's name and description, the tool_search tool and
 *   the pinned tools) and the provider-neutral path (runAgent's `search_tools` and the pinned tools,
 *   in Chat Completions form). Three tools are pinned.
 * - Search latency p50/p99 over every query, many passes; index build time (median of 15 builds);
 *   recall@5 and MRR on the tuning half (test/catalog/queries.ts) and the held-out half
 *   (test/catalog/held-out-queries.ts), and the mean hits a search returns past the cut-off.
 * - Start of a Switchboard of 100 lazy stdio servers with a catalog snapshot (median of 7): nothing
 *   is spawned.
 *
 *   npx tsx bench/catalog.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens } from "gpt-tokenizer";
import { ToolSearchIndex } from "../src/catalog/search-index.js";
import { SEARCH_TOOL } from "../src/agents/deferred-tools.js";
import type { Tool } from "../src/index.js";
import { toAnthropicTools, toOpenAITools } from "../src/index.js";
import { HELD_OUT_QUERIES } from "../test/catalog/held-out-queries.js";
import { QUERIES, catalogServers, type CatalogQuery } from "../test/catalog/queries.js";
import { machine, writeResult } from "./lib/results.js";
import { Switchboard } from "./lib/runtime.js";

const started = machine();
const servers = catalogServers();
const catalog: Tool[] = Object.entries(servers).flatMap(([server, tools]) => tools.map((tool) => ({ ...tool, name: `${server}__${tool.name}` })));
const PINNED = ["filesystem__read_text_file", "github__create_issue", "acme__get_customer"];
const tokens = (value: unknown) => countTokens(JSON.stringify(value));

// ---- tokens on turn 1 ------------------------------------------------------------------------------
const anthropicEager = tokens(toAnthropicTools(catalog));
const anthropicDeferred = tokens(toAnthropicTools(catalog, { deferLoading: { pinned: PINNED } }).filter((tool) => !("defer_loading" in tool)));
const responsesEager = tokens(toOpenAITools(catalog, { api: "responses" }));
const responsesDeferred = tokens(
  toOpenAITools(catalog, { api: "responses", deferLoading: { pinned: PINNED } }).map((tool) =>
    tool.type === "namespace" ? { type: tool.type, name: tool.name, description: tool.description } : tool,
  ),
);
const neutralEager = tokens(toOpenAITools(catalog));
const neutralDeferred = tokens(toOpenAITools([...catalog.filter((tool) => PINNED.includes(tool.name)), SEARCH_TOOL]));

// ---- search ------------------------------------------------------------------------------------------
function build(): ToolSearchIndex {
  const index = new ToolSearchIndex();
  for (const [server, tools] of Object.entries(servers))
    index.setServer(
      server,
      tools.map((tool) => ({ name: `${server}__${tool.name}`, tool })),
    );
  return index;
}
const buildMs: number[] = [];
for (let i = 0; i < 15; i++) {
  const began = performance.now();
  build();
  buildMs.push(performance.now() - began);
}
const index = build();
/** recall@5, MRR (first 10) and the mean hits a search with limit 5 returns (the cut-off drops weak ones). */
function quality(queries: readonly CatalogQuery[]) {
  let found = 0;
  let reciprocal = 0;
  let hits = 0;
  for (const { query, expected } of queries) {
    const rank = index.search(query, { limit: 10 }).findIndex((hit) => expected.includes(hit.name));
    if (rank >= 0 && rank < 5) found++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
    hits += index.search(query, { limit: 5 }).length;
  }
  return { recall: found / queries.length, mrr: reciprocal / queries.length, hits: hits / queries.length };
}
const tuning = quality(QUERIES);
const heldOut = quality(HELD_OUT_QUERIES);
for (let i = 0; i < 3; i++) for (const { query } of QUERIES) index.search(query); // warm up
const searchMs: number[] = [];
for (let pass = 0; pass < 25; pass++) {
  for (const { query } of QUERIES) {
    const began = performance.now();
    index.search(query, { limit: 5 });
    searchMs.push(performance.now() - began);
  }
}

// ---- 100 lazy servers ----------------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), "bench-catalog-"));
const echo = fileURLToPath(new URL("../examples/servers/echo-server.mjs", import.meta.url));
const lazyServers: Record<string, { command: string; args: string[]; lazy: true }> = {};
const snapshot: { version: 1; servers: Record<string, { tools: Tool[]; listedAt: string }> } = { version: 1, servers: {} };
for (let i = 0; i < 100; i++) {
  lazyServers[`s${i}`] = { command: process.execPath, args: [echo], lazy: true };
  snapshot.servers[`s${i}`] = { tools: servers.filesystem, listedAt: new Date().toISOString() };
}
const catalogFile = join(dir, "catalog.json");
writeFileSync(catalogFile, JSON.stringify(snapshot));
const lazyMs: number[] = [];
let lazyTools = 0;
for (let i = 0; i < 7; i++) {
  const began = performance.now();
  const board = new Switchboard({ servers: lazyServers, catalogFile });
  await board.start();
  lazyMs.push(performance.now() - began);
  lazyTools = (await board.listTools()).length;
  await board.stop();
}
rmSync(dir, { recursive: true, force: true });

// ---- report --------------------------------------------------------------------------------------------
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const round = (value: number, digits = 3) => Number(value.toFixed(digits));
const paths = [
  { path: "Anthropic (defer_loading + tool search)", eager: anthropicEager, deferred: anthropicDeferred },
  { path: "OpenAI Responses (namespaces + tool_search)", eager: responsesEager, deferred: responsesDeferred },
  { path: "provider-neutral (search_tools)", eager: neutralEager, deferred: neutralDeferred },
];
const rows: Array<Record<string, string | number>> = [
  ...paths.map((p) => ({ measure: `turn-1 tokens, ${p.path}`, eager: p.eager, deferred: p.deferred, ratio: round(p.deferred / p.eager) })),
  { measure: "search p50 (ms)", value: round(quantile(searchMs, 0.5), 4) },
  { measure: "search p99 (ms)", value: round(quantile(searchMs, 0.99), 4) },
  { measure: "index build, median (ms)", value: round(quantile(buildMs, 0.5), 2) },
  { measure: "recall@5, tuning half", value: round(tuning.recall) },
  { measure: "MRR, tuning half", value: round(tuning.mrr) },
  { measure: "recall@5, held-out half", value: round(heldOut.recall) },
  { measure: "MRR, held-out half", value: round(heldOut.mrr) },
  { measure: "hits per search (limit 5, cut-off 0.25), tuning / held-out", value: `${round(tuning.hits, 2)} / ${round(heldOut.hits, 2)}` },
  { measure: "start of 100 lazy servers, median (ms)", value: round(quantile(lazyMs, 0.5), 1), tools: lazyTools },
];
console.table(rows);
writeResult(
  {
    bench: "catalog",
    title: `Catalogs: ${catalog.length} tools from ${Object.keys(servers).length} servers, ${QUERIES.length} queries`,
    method: `gpt-tokenizer (o200k) over the JSON of the tools sent on turn 1, ${PINNED.length} tools pinned; search: ${searchMs.length} searches; build: median of 15; 100 lazy stdio servers: median of 7 starts`,
    rows,
    ratios: Object.fromEntries(paths.map((p) => [`deferred ÷ eager tokens, ${p.path}`, round(p.deferred / p.eager)])),
    targets: {
      "catalog-tokens-anthropic": anthropicDeferred / anthropicEager,
      "catalog-tokens-responses": responsesDeferred / responsesEager,
      "catalog-tokens-neutral": neutralDeferred / neutralEager,
      "catalog-lazy-100-ms": quantile(lazyMs, 0.5),
    },
    chart: {
      title: `Tool definitions sent on turn 1: ${catalog.length} tools, eager vs deferred`,
      xLabel: "path",
      panels: [
        {
          title: "turn-1 tool tokens (lower is better)",
          unit: "tokens",
          groups: paths.map((p) => ({ label: p.path.split(" (")[0], values: { eager: p.eager, deferred: p.deferred } })),
        },
      ],
    },
  },
  started,
);
