#!/usr/bin/env node
// A minimal MCP responder over stdio, hand-written with no SDK, as fast as Node allows: it reads lines
// and answers initialize, tools/list, tools/call (echo) and ping, batching its writes per input chunk.
// Benchmarks use it so that the client, not the server, is the bottleneck.
const VERSIONS = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
const TOOLS = [{ name: "echo", description: "Returns its text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }];
// RAW_MODERN=1: a 2026-07-28 responder instead (server/discover, resultType on every result).
const MODERN = Boolean(process.env.RAW_MODERN);
const DISCOVER = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: "public",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "raw-responder", version: "1.0.0" } },
};
let buffered = "";
let initialized = false;
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const text = buffered + chunk;
  let out = "";
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    const line = text.slice(start, nl);
    start = nl + 1;
    if (line.length === 0) continue;
    const message = JSON.parse(line);
    if (message.id === undefined || message.method === undefined) continue;
    // Some 2025 servers exit on any request that comes before initialize (RAW_EXIT_BEFORE_INITIALIZE=1),
    // others say nothing (RAW_SILENT_BEFORE_INITIALIZE=1): the era probe must survive both.
    if (!MODERN && !initialized && message.method !== "initialize") {
      if (process.env.RAW_EXIT_BEFORE_INITIALIZE) process.exit(2);
      if (process.env.RAW_SILENT_BEFORE_INITIALIZE) continue;
    }
    if (message.method === "initialize") initialized = true;
    let result;
    switch (message.method) {
      case "initialize": {
        const offered = message.params?.protocolVersion;
        result = {
          protocolVersion: VERSIONS.has(offered) ? offered : "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "raw-responder", version: "1.0.0" },
        };
        break;
      }
      case "server/discover":
        if (!MODERN) break;
        result = DISCOVER;
        break;
      case "tools/list":
        result = MODERN ? { resultType: "complete", ttlMs: 0, cacheScope: "public", tools: TOOLS } : { tools: TOOLS };
        break;
      case "tools/call":
        result = MODERN
          ? { resultType: "complete", content: [{ type: "text", text: String(message.params?.arguments?.text ?? "") }] }
          : { content: [{ type: "text", text: String(message.params?.arguments?.text ?? "") }] };
        break;
      case "ping":
        if (!MODERN) result = {};
        break;
    }
    if (result === undefined) {
      out += `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } })}\n`;
      continue;
    }
    out += `${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`;
  }
  buffered = text.slice(start);
  if (out) process.stdout.write(out);
});
process.stdin.on("end", () => process.exit(0));
