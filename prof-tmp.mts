import { codeMode, memoryPair, Switchboard } from "./src/index.js";
const board = new Switchboard({ servers: { s: { transport: () => { const [c, s] = memoryPair(); void s.start({ message: (m: any) => { if (!("id" in m) || !("method" in m)) return; const result = m.method === "initialize" ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "b", version: "1" } } : m.method === "tools/list" ? { tools: [{ name: "lookup", inputSchema: { type: "object" } }] } : { content: [{ type: "text", text: "{}" }], structuredContent: { revenue: 1 } }; void s.send({ jsonrpc: "2.0", id: m.id, result }); }, error: () => {}, close: () => {} }); return c; } } } });
await board.start(); await board.listTools();
const code = codeMode(board);
const loop = `let n = 0; for (let i = 0; i < 20000; i++) { const r = await tools.s.lookup({ id: "c1" }); n += r.revenue; } return n;`;
await code.run(loop);
const c = process.cpuUsage(); await code.run(loop); const u = process.cpuUsage(c); console.log("cpu us/call", (u.user + u.system) / 20000);
await board.stop();
