// The tools of the bundled echo server, on the official SDK's McpServer, so tests can serve the same
// server over stdio, HTTP, or an in-memory transport.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("cancelled"));
      },
      { once: true },
    );
  });

export function createEchoServer(name = "echo-server") {
  const server = new McpServer({ name, version: "1.0.0" }, { instructions: "Echoes, adds, reports progress, and can be told to crash." });

  server.registerTool("echo", { description: "Returns its text.", inputSchema: { text: z.string() } }, async ({ text: value }) => text(value));

  server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() }, annotations: { idempotentHint: true } },
    async ({ a, b }) => text(a + b),
  );

  server.registerTool(
    "progress",
    {
      description: "Reports progress for each step, then returns.",
      inputSchema: { steps: z.number().int().min(1), delayMs: z.number().int().min(0).default(50) },
    },
    async ({ steps, delayMs }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await sleep(delayMs, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps, message: `step ${step} of ${steps}` },
          });
        }
      }
      return text("done");
    },
  );

  server.registerTool("slow", { description: "Waits, honouring cancellation.", inputSchema: { ms: z.number().int().min(0) } }, async ({ ms }, extra) => {
    await sleep(ms, extra.signal);
    return text(`waited ${ms} ms`);
  });

  server.registerTool("crash", { description: "Makes the server process exit with code 3." }, async () => {
    process.stderr.write("about to crash\n");
    setImmediate(() => process.exit(3));
    return new Promise(() => {});
  });

  server.registerTool("fail", { description: "Returns an error result." }, async () => ({
    isError: true,
    content: [{ type: "text", text: "this tool always fails" }],
  }));

  server.registerTool("idempotent_read", { description: "Reads a value; safe to retry.", annotations: { readOnlyHint: true } }, async () =>
    text(`pid ${process.pid}`),
  );

  server.registerTool("pid", { description: "Says which process answered." }, async () => text(process.pid));

  // Server-to-client requests: the server asks the client's model, and the client's roots.
  server.registerTool(
    "ask_model",
    { description: "Asks the client's model (sampling) and returns its answer.", inputSchema: { question: z.string() } },
    async ({ question }) => {
      const answer = await server.server.createMessage({ messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens: 100 });
      return text(answer.content.type === "text" ? answer.content.text : JSON.stringify(answer.content));
    },
  );

  server.registerTool("client_roots", { description: "Lists the client's roots." }, async () => {
    const { roots } = await server.server.listRoots();
    return text(roots.map((root) => root.uri).join(","));
  });

  return server;
}
