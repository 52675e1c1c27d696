/**
 * A call's own handlers (`callTool(..., { handlers })`) are entered as a scope only when the client
 * declared something a server may ask for: entering one turns on Node's promise hooks for the whole
 * process, so a client that declared none of sampling, elicitation and roots (a gateway's board
 * without pass-through) runs its calls without one, and a server that asks anyway gets -32601.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, type ClientOptions, type McpClient } from "../../src/index.js";
import type { JsonRpcMessage, JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { requestContext } from "../../src/util/request-context.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

let clients: McpClient[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

const sample = { role: "assistant" as const, model: "m", content: { type: "text" as const, text: "from the call" } };

/** A server whose tools/call asks the client for sampling, then answers the call with the client's answer. */
async function askingServer(options: ClientOptions) {
  const server = new ScriptedServer();
  server.on("tools/call", (request: JsonRpcRequest, self) => {
    self.send({ jsonrpc: "2.0", id: 900, method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } });
    void waitFor(() => self.received.some((m) => "id" in m && m.id === 900 && !("method" in m))).then(() => {
      const answer = self.received.find((m) => "id" in m && m.id === 900 && !("method" in m)) as JsonRpcMessage;
      self.send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: JSON.stringify(answer) }] } });
    });
    return "silent";
  });
  const client = await connect(server.clientSide, { protocol: "legacy", ...options });
  clients.push(client);
  return client;
}

const answerOf = (result: { content: Array<{ type: string; text?: string }> }) => JSON.parse(result.content[0].text!) as Record<string, unknown>;

describe("a call's own handlers", () => {
  it("answer the server's request when the client declared the capability", async () => {
    const client = await askingServer({ capabilities: { sampling: {} } });
    const run = vi.spyOn(requestContext, "run");
    const result = await client.callTool("echo", {}, { handlers: { onSampling: () => sample } });
    expect(answerOf(result)).toMatchObject({ result: { content: { text: "from the call" } } });
    expect(run).toHaveBeenCalled();
  });

  it("are not entered when the client declared nothing a server may ask: the server gets -32601", async () => {
    const client = await askingServer({});
    const run = vi.spyOn(requestContext, "run");
    const onSampling = vi.fn(() => sample);
    const result = await client.callTool("echo", {}, { handlers: { onSampling } });
    expect(answerOf(result)).toMatchObject({ error: { code: -32601 } });
    expect(onSampling).not.toHaveBeenCalled();
    expect(run).not.toHaveBeenCalled();
  });
});
