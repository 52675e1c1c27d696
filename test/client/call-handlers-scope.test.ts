/**
 * A call's own handlers (`callTool(..., { handlers })`) travel with its request as its origin, not in
 * an AsyncLocalStorage scope: entering one turns on Node's promise hooks for the whole process, a cost
 * on every promise of the application. A server request that comes on the call's own stream is
 * delivered for that origin, so concurrent calls each get their own handlers; a client that declared
 * none of sampling, elicitation and roots sends no origin, and a server that asks anyway gets -32601.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, type ClientOptions, type McpClient } from "../../src/index.js";
import type { JsonRpcMessage, JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { createAskingServer } from "../fixtures/asking-server.js";
import { startStreamableHttpServer, type StreamableServer } from "../fixtures/http-servers.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

let clients: McpClient[] = [];
let servers: StreamableServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(servers.map((server) => server.close()));
  clients = [];
  servers = [];
});

const sample = { role: "assistant" as const, model: "m", content: { type: "text" as const, text: "from the call" } };
const sampleSaying = (text: string) => ({ role: "assistant" as const, model: "m", content: { type: "text" as const, text } });

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
const textOf = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0].text;

describe("a call's own handlers", () => {
  it("answer the server's request when the client declared the capability, with no AsyncLocalStorage entered", async () => {
    const client = await askingServer({ capabilities: { sampling: {} } });
    const run = vi.spyOn(AsyncLocalStorage.prototype, "run");
    const enter = vi.spyOn(AsyncLocalStorage.prototype, "enterWith");
    const result = await client.callTool("echo", {}, { handlers: { onSampling: () => sample } });
    expect(answerOf(result)).toMatchObject({ result: { content: { text: "from the call" } } });
    expect(run).not.toHaveBeenCalled();
    expect(enter).not.toHaveBeenCalled();
  });

  it("are not used when the client declared nothing a server may ask: the server gets -32601", async () => {
    const client = await askingServer({});
    const onSampling = vi.fn(() => sample);
    const result = await client.callTool("echo", {}, { handlers: { onSampling } });
    expect(answerOf(result)).toMatchObject({ error: { code: -32601 } });
    expect(onSampling).not.toHaveBeenCalled();
  });

  it("each answer the request that came on their own call's stream, with calls at once over Streamable HTTP", async () => {
    const server = await startStreamableHttpServer({ stateful: true, createServer: () => createAskingServer() });
    servers.push(server);
    const client = await connect({ url: server.url }, { protocol: "legacy", capabilities: { sampling: {} } });
    clients.push(client);
    const asked: string[] = [];
    const call = (who: string) =>
      client.callTool(
        "ask_model",
        { question: who },
        {
          handlers: {
            onSampling: (params) => {
              asked.push(`${who} asked ${(params.messages[0].content as { text: string }).text}`);
              return sampleSaying(`answered by ${who}'s handler`);
            },
          },
        },
      );
    // With three in flight nothing but the request's origin can say whose it is (out of band, the
    // client refuses to guess with more than one call in flight).
    const results = await Promise.all([call("ada"), call("bob"), call("cy")]);
    expect(results.map(textOf)).toEqual(["answered by ada's handler", "answered by bob's handler", "answered by cy's handler"]);
    expect(asked.sort()).toEqual(["ada asked ada", "bob asked bob", "cy asked cy"]);
  });
});
