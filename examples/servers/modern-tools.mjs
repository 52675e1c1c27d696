// A 2026-07-28 server on the official SDK v2 (@modelcontextprotocol/server): tools that exercise the
// stateless era (multi-round-trip input, progress, header mirroring), one factory for stdio and HTTP.
import { McpServer, inputRequired, acceptedContent } from "@modelcontextprotocol/server";
import { z } from "zod";

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });

/** `extraTools`: names of more echo-like tools, read at each call (the HTTP handler builds a server per request), so a test can change the tool list. */
export function createModernServer(name = "modern-server", { extraTools = [] } = {}) {
  const server = new McpServer(
    { name, version: "2.0.0" },
    {
      instructions: "A 2026-era test server.",
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true, subscribe: true }, prompts: { listChanged: true }, logging: {} },
    },
  );
  server.registerTool("echo", { description: "Returns its text.", inputSchema: z.object({ text: z.string() }) }, async ({ text: value }) => text(value));
  server.registerTool("add", { description: "Adds two numbers.", inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => text(a + b));
  server.registerTool(
    "confirm",
    { description: "Asks the user to confirm (elicitation).", inputSchema: z.object({ what: z.string() }) },
    async ({ what }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm");
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Confirm ${what}?`,
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
            }),
          },
        });
      }
      return text(`confirmed ${what}: ${answer.ok}`);
    },
  );
  server.registerTool(
    "summarize",
    { description: "Asks the client's model (sampling) and lists its roots.", inputSchema: z.object({ topic: z.string() }) },
    async ({ topic }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      if (!responses?.summary || !responses?.roots) {
        return inputRequired({
          inputRequests: {
            summary: inputRequired.createMessage({ messages: [{ role: "user", content: { type: "text", text: `Summarize ${topic}` } }], maxTokens: 50 }),
            roots: inputRequired.listRoots(),
          },
          requestState: "state-1",
        });
      }
      const summary = responses.summary.content?.text ?? "?";
      const roots = (responses.roots.roots ?? []).map((root) => root.uri).join(",");
      return text(`${summary} | ${roots}`);
    },
  );
  server.registerTool(
    "chatty",
    { description: "Logs at debug, info and warning (in the 2026 era, only at or above the request's log level), then returns.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      for (const level of ["debug", "info", "warning"]) await ctx.mcpReq.log(level, `${level} from chatty`, "chatty");
      return text("said it");
    },
  );
  for (const extra of extraTools) server.registerTool(extra, { description: `Extra tool ${extra}.`, inputSchema: z.object({}) }, async () => text(extra));
  server.registerResource("greeting", "test://greeting", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: "hello" }] }));
  server.registerPrompt("hello", { description: "Says hello." }, async () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }));
  return server;
}
