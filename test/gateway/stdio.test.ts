import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serveStdio } from "../../src/gateway/stdio.js";
import { gatewaysAfterEach, echo } from "./helpers.js";

const { board } = gatewaysAfterEach();

/** The gateway on a pair of in-memory pipes: lines in, each line out parsed. */
async function stdioGateway() {
  const b = board({ servers: { echo } });
  await b.start();
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: unknown[] = [];
  let buffered = "";
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
      lines.push(JSON.parse(buffered.slice(0, at)));
      buffered = buffered.slice(at + 1);
    }
  });
  const gateway = serveStdio(b, { maxBodyBytes: 4096 }, input, output);
  const send = (value: unknown) => input.write(typeof value === "string" ? `${value}\n` : `${JSON.stringify(value)}\n`);
  const reply = async (id: number) => {
    for (let i = 0; i < 200; i++) {
      const found = lines.find((l) => (l as { id?: unknown }).id === id);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no reply to ${id}`);
  };
  return { gateway, input, lines, send, reply };
}

describe("serveStdio: one client over newline-delimited JSON", () => {
  it("answers initialize, lists and calls, with progress on stdout before the response", async () => {
    const { gateway, input, lines, send, reply } = await stdioGateway();
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    expect(await reply(1)).toMatchObject({ result: { protocolVersion: "2025-06-18", serverInfo: { name: "mcp-switchboard-gateway" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo__progress", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: "p" } },
    });
    expect(await reply(2)).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
    const progress = lines.filter((l) => (l as { method?: string }).method === "notifications/progress");
    expect(progress.map((p) => (p as { params: { progressToken: string; progress: number } }).params)).toMatchObject([
      { progressToken: "p", progress: 1 },
      { progressToken: "p", progress: 2 },
    ]);
    input.end();
    await gateway.closed;
  });

  it("bad lines get -32700 or -32600 and the session goes on", async () => {
    const { gateway, lines, send, reply } = await stdioGateway();
    send("{oops");
    send({ jsonrpc: "1.0", id: 5 });
    send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo__echo", arguments: { text: "y".repeat(5000) } } }));
    send({ jsonrpc: "2.0", id: 4, method: "ping" });
    expect(await reply(4)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    const errors = lines.filter((l) => (l as { id?: unknown }).id === null).map((l) => (l as { error: { code: number } }).error.code);
    expect(errors).toEqual([-32700, -32600, -32700]);
    gateway.close();
  });
});
