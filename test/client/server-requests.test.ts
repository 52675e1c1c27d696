/**
 * What the server may ask of the client: sampling, elicitation, roots. The client declares exactly the
 * capabilities it has handlers for, answers -32601 where it has none and -32603 where a handler
 * throws, aborts a handler's signal when the server cancels, and fills SEP-1034 defaults.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, type ClientOptions, type McpClient } from "../../src/index.js";
import { withElicitationDefaults } from "../../src/client/elicitation-defaults.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

async function open(options: ClientOptions = {}) {
  const server = new ScriptedServer();
  const client = await connect(server.clientSide, { protocol: "legacy", ...options });
  clients.push(client);
  return { server, client };
}

function declared(server: ScriptedServer): Record<string, unknown> {
  return (server.messages("initialize")[0] as unknown as { params: { capabilities: Record<string, unknown> } }).params.capabilities;
}

let nextId = 1000;
/** Sends a request from the server and resolves with the client's response. */
async function ask(server: ScriptedServer, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const id = nextId++;
  server.send({ jsonrpc: "2.0", id, method, params });
  let response: JsonRpcMessage | undefined;
  await waitFor(() => (response = server.received.find((m) => "id" in m && m.id === id && !("method" in m))) !== undefined);
  return response as unknown as Record<string, unknown>;
}

const sample = { role: "assistant" as const, model: "m", content: { type: "text" as const, text: "hi" } };

describe("client capabilities", () => {
  it("declares nothing without handlers, and exactly the handlers given", async () => {
    expect(declared((await open()).server)).toEqual({});
    expect(declared((await open({ onSampling: () => sample })).server)).toEqual({ sampling: {} });
    expect(declared((await open({ onElicitation: () => ({ action: "decline" }) })).server)).toEqual({ elicitation: { form: {}, url: {} } });
    expect(declared((await open({ roots: [] })).server)).toEqual({ roots: { listChanged: true } });
    expect(declared((await open({ onRoots: () => [], capabilities: { experimental: { x: {} } } })).server)).toEqual({
      roots: { listChanged: true },
      experimental: { x: {} },
    });
  });
});

describe("server-to-client requests", () => {
  it("answers -32601 for a request the client has no handler for", async () => {
    const { server } = await open();
    for (const method of ["sampling/createMessage", "elicitation/create", "roots/list", "something/else"]) {
      expect(await ask(server, method)).toMatchObject({ error: { code: -32601, message: expect.stringContaining(method) } });
    }
  });

  it("passes params and a context to the handler and returns its result", async () => {
    const seen: unknown[] = [];
    const { server } = await open({
      onSampling: (params, context) => {
        seen.push(params, context.method, context.signal.aborted);
        return sample;
      },
    });
    const params = { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 5 };
    expect(await ask(server, "sampling/createMessage", params)).toMatchObject({ result: sample });
    expect(seen).toEqual([params, "sampling/createMessage", false]);
  });

  it("answers -32603 with the message of a handler that throws, and reports it as an error event", async () => {
    const { server, client } = await open({
      onSampling: () => {
        throw new Error("no model available");
      },
    });
    const errors: Error[] = [];
    client.on("error", (error) => errors.push(error));
    expect(await ask(server, "sampling/createMessage")).toMatchObject({ error: { code: -32603, message: "no model available" } });
    expect(errors[0]?.message).toContain("no model available");
  });

  it("aborts the handler's signal when the server sends notifications/cancelled, and sends no response", async () => {
    let signal: AbortSignal | undefined;
    const { server, client } = await open({
      onElicitation: (_params, context) =>
        new Promise((_resolve, reject) => {
          signal = context.signal;
          context.signal.addEventListener("abort", () => reject(context.signal.reason));
        }),
    });
    const id = nextId++;
    server.send({ jsonrpc: "2.0", id, method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object", properties: {} } } });
    await waitFor(() => signal !== undefined);
    server.notify("notifications/cancelled", { requestId: id, reason: "user went away" });
    await waitFor(() => signal!.aborted);
    await client.ping(); // one more round trip: a response to the cancelled request would have arrived by now
    expect(server.received.some((m) => "id" in m && m.id === id && !("method" in m))).toBe(false);
    expect(client.connection.stats().inbound).toBe(0);
  });

  it("serves a static roots list, and setRoots() replaces it and sends roots/list_changed", async () => {
    const { server, client } = await open({ roots: [{ uri: "file:///a", name: "a" }] });
    expect(await ask(server, "roots/list")).toMatchObject({ result: { roots: [{ uri: "file:///a", name: "a" }] } });
    await client.setRoots([{ uri: "file:///b" }]);
    await waitFor(() => server.messages("notifications/roots/list_changed").length === 1);
    expect(await ask(server, "roots/list")).toMatchObject({ result: { roots: [{ uri: "file:///b" }] } });
    expect(client.roots).toEqual([{ uri: "file:///b" }]);
  });

  it("onRoots may return a list or a result", async () => {
    const asList = await open({ onRoots: () => [{ uri: "file:///x" }] });
    expect(await ask(asList.server, "roots/list")).toMatchObject({ result: { roots: [{ uri: "file:///x" }] } });
    const asResult = await open({ onRoots: async () => ({ roots: [{ uri: "file:///y" }] }) });
    expect(await ask(asResult.server, "roots/list")).toMatchObject({ result: { roots: [{ uri: "file:///y" }] } });
  });
});

describe("elicitation", () => {
  const requestedSchema = {
    type: "object",
    properties: {
      name: { type: "string", default: "John Doe" },
      age: { type: "integer", default: 30 },
      verified: { type: "boolean", default: false },
      status: { type: "string", enum: ["a", "b"], default: "a" },
      note: { type: "string" },
    },
  };

  it("fills in schema defaults for fields an accepted form left out (SEP-1034), keeping what the user gave", async () => {
    const { server } = await open({ onElicitation: () => ({ action: "accept", content: { name: "Ada", verified: true } }) });
    const response = await ask(server, "elicitation/create", { mode: "form", message: "who?", requestedSchema });
    expect(response).toMatchObject({ result: { action: "accept", content: { name: "Ada", age: 30, verified: true, status: "a" } } });
    expect((response.result as { content: Record<string, unknown> }).content).not.toHaveProperty("note");
  });

  it("leaves declined and cancelled answers alone, and accept without content gets every default", () => {
    const params = { message: "?", requestedSchema };
    expect(withElicitationDefaults(params, { action: "decline" })).toEqual({ action: "decline" });
    expect(withElicitationDefaults(params, { action: "cancel" })).toEqual({ action: "cancel" });
    expect(withElicitationDefaults(params, { action: "accept" })).toEqual({
      action: "accept",
      content: { name: "John Doe", age: 30, verified: false, status: "a" },
    });
  });

  it("passes URL mode through to the same handler untouched", async () => {
    const seen: unknown[] = [];
    const { server } = await open({
      onElicitation: (params) => {
        seen.push(params);
        return { action: "accept" };
      },
    });
    const params = { mode: "url", message: "Sign in", url: "https://example.com/auth", elicitationId: "e1" };
    expect(await ask(server, "elicitation/create", params)).toMatchObject({ result: { action: "accept" } });
    expect(seen).toEqual([params]);
  });
});
