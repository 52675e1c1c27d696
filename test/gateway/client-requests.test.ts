/** The gateway's requests to a downstream client: matched by id, cancelled when the server cancels, failed when the client goes. */
import { describe, expect, it } from "vitest";
import type { JsonRpcNotification, JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { ProtocolError, RequestCancelledError } from "../../src/jsonrpc/errors.js";
import { ClientRequests, handlersFor, modernEnvelope } from "../../src/gateway/client-requests.js";
import type { Downstream } from "../../src/gateway/downstream.js";

function fakeDownstream(capabilities: Record<string, unknown> | undefined) {
  const sent: Array<JsonRpcNotification | JsonRpcRequest> = [];
  const downstream: Downstream = {
    principal: undefined,
    protocolVersion: "2025-11-25",
    clientInfo: { name: "fake" },
    capabilities,
    logLevel: undefined,
    inFlight: new Map(),
    push: (message) => sent.push(message),
  };
  return { downstream, sent };
}

describe("ClientRequests", () => {
  it("sends on the call's stream when there is one, else on the client's own, and settles with the answer", async () => {
    const { downstream, sent } = fakeDownstream({ roots: {} });
    const requests = new ClientRequests();
    const onStream: JsonRpcRequest[] = [];
    const related = requests.ask(downstream, "roots/list", {}, new AbortController().signal, (m) => onStream.push(m as JsonRpcRequest));
    expect(sent).toEqual([]);
    expect(onStream).toMatchObject([{ jsonrpc: "2.0", method: "roots/list" }]);
    const unrelated = requests.ask(downstream, "roots/list", {}, new AbortController().signal, undefined);
    expect(sent).toMatchObject([{ method: "roots/list" }]);
    requests.answered({ jsonrpc: "2.0", id: onStream[0].id, result: { roots: [{ uri: "file:///a" }] } });
    requests.answered({ jsonrpc: "2.0", id: (sent[0] as JsonRpcRequest).id, result: { roots: [] } });
    await expect(related).resolves.toEqual({ roots: [{ uri: "file:///a" }] });
    await expect(unrelated).resolves.toEqual({ roots: [] });
  });

  it("answers: a result resolves, an error rejects with the client's code, an unknown id is not taken", async () => {
    const { downstream, sent } = fakeDownstream({ sampling: {} });
    const requests = new ClientRequests();
    const first = requests.ask(downstream, "sampling/createMessage", {}, new AbortController().signal, undefined);
    const second = requests.ask(downstream, "sampling/createMessage", {}, new AbortController().signal, undefined);
    const [a, b] = sent as JsonRpcRequest[];
    expect(a.id).not.toBe(b.id);
    expect(requests.answered({ jsonrpc: "2.0", id: "nobody", result: {} })).toBe(false);
    expect(requests.answered({ jsonrpc: "2.0", id: b.id, error: { code: -1, message: "user declined" } })).toBe(true);
    expect(requests.answered({ jsonrpc: "2.0", id: a.id, result: { model: "m" } })).toBe(true);
    await expect(first).resolves.toEqual({ model: "m" });
    await expect(second).rejects.toMatchObject({ code: -1, message: expect.stringContaining("user declined") });
  });

  it("a server's cancellation tells the client with notifications/cancelled; a late answer is dropped", async () => {
    const { downstream, sent } = fakeDownstream({ elicitation: {} });
    const requests = new ClientRequests();
    const controller = new AbortController();
    const pending = requests.ask(downstream, "elicitation/create", {}, controller.signal, undefined);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(RequestCancelledError);
    const id = (sent[0] as JsonRpcRequest).id;
    expect(sent[1]).toMatchObject({ method: "notifications/cancelled", params: { requestId: id } });
    expect(requests.answered({ jsonrpc: "2.0", id, result: {} })).toBe(false);
  });

  it("a client that goes away fails what waits on it", async () => {
    const { downstream } = fakeDownstream({ sampling: {} });
    const requests = new ClientRequests();
    const pending = requests.ask(downstream, "sampling/createMessage", {}, new AbortController().signal, undefined);
    requests.close();
    await expect(pending).rejects.toBeInstanceOf(ProtocolError);
  });
});

describe("handlersFor", () => {
  it("refuses with -32601 what the client did not declare, and asks what it did", async () => {
    const { downstream, sent } = fakeDownstream({ roots: {} });
    const handlers = handlersFor(downstream, undefined);
    const context = { signal: new AbortController().signal, method: "sampling/createMessage" };
    await expect(handlers.onSampling!({ messages: [], maxTokens: 1 }, context)).rejects.toMatchObject({ code: -32601 });
    await expect(handlers.onElicitation!({ message: "?", requestedSchema: { type: "object", properties: {} } } as never, context)).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining('"fake" did not declare the elicitation capability'),
    });
    expect(sent).toEqual([]);
    const roots = handlers.onRoots!(context);
    expect(sent).toMatchObject([{ method: "roots/list" }]);
    downstream.requests!.answered({ jsonrpc: "2.0", id: (sent[0] as JsonRpcRequest).id, result: { roots: [] } });
    await expect(roots).resolves.toEqual({ roots: [] });
  });
});

describe("a 2026-07-28 client's calls", () => {
  const modern = (capabilities: Record<string, unknown> | undefined) => {
    const { downstream, sent } = fakeDownstream(capabilities);
    downstream.protocolVersion = "2026-07-28";
    return { downstream, sent };
  };

  it("declare upstream, of what a server may ask, only what the request declared", () => {
    expect(modernEnvelope(modern({ sampling: {}, experimental: { x: {} } }).downstream)).toEqual({
      meta: { "io.modelcontextprotocol/clientCapabilities": { sampling: {} } },
    });
    expect(modernEnvelope(modern(undefined).downstream)).toEqual({ meta: { "io.modelcontextprotocol/clientCapabilities": {} } });
    // A 2025 session declared its capabilities once, at initialize: nothing per call.
    expect(modernEnvelope(fakeDownstream({ sampling: {} }).downstream)).toEqual({});
  });
});
