/**
 * The server `mcp-switchboard demo` starts: a small MCP server over stdio with no dependencies, so the
 * demo works from the installed package with no configuration. Tools: echo, add, progress; resources
 * and prompts from demo-catalog.ts.
 */
import { NdjsonDecoder } from "../framing/ndjson.js";
import { catalogAnswer } from "./demo-catalog.js";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Record<string, unknown> };

const TOOLS = [
  { name: "echo", description: "Returns its text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    annotations: { idempotentHint: true, readOnlyHint: true },
  },
  {
    name: "progress",
    description: "Reports progress for each step, then returns.",
    inputSchema: { type: "object", properties: { steps: { type: "integer", minimum: 1 } } },
  },
];

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
const text = (value: unknown) => ({ content: [{ type: "text", text: String(value) }] });

async function callTool(name: unknown, args: Record<string, unknown>, progressToken: unknown): Promise<unknown> {
  switch (name) {
    case "echo":
      return text(args.text ?? "");
    case "add":
      return text(Number(args.a) + Number(args.b));
    case "progress": {
      const steps = Math.max(1, Math.min(100, Number(args.steps ?? 3)));
      for (let step = 1; step <= steps; step++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (progressToken !== undefined)
          send({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken, progress: step, total: steps, message: `step ${step} of ${steps}` },
          });
      }
      return text("done");
    }
    default:
      return { isError: true, content: [{ type: "text", text: `Unknown tool ${String(name)}` }] };
  }
}

async function answer(message: Message): Promise<void> {
  if (message.id === undefined) return;
  const reply = (result: unknown) => send({ jsonrpc: "2.0", id: message.id, result });
  const params = message.params ?? {};
  switch (message.method) {
    case "initialize":
      return reply({
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {}, resources: {}, prompts: {} },
        serverInfo: { name: "mcp-switchboard-demo", version: "1.0.0" },
      });
    case "ping":
      return reply({});
    case "tools/list":
      return reply({ tools: TOOLS });
    case "tools/call": {
      const meta = params._meta as { progressToken?: unknown } | undefined;
      return reply(await callTool(params.name, (params.arguments as Record<string, unknown>) ?? {}, meta?.progressToken));
    }
    default: {
      const answer = catalogAnswer(message.method, params);
      if (answer) return send({ jsonrpc: "2.0", id: message.id, ...answer });
      send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
    }
  }
}

const decoder = new NdjsonDecoder({
  onValue: (message) => void answer(message as Message),
  onError: (error) => process.stderr.write(`demo server: ${error.message}\n`),
});
process.stdin.on("data", (chunk: Buffer) => decoder.push(chunk));
process.stdin.on("end", () => process.exit(0));
