/**
 * The ready gate: callers that wait for readiness (requests before their connection negotiated, calls
 * for a Switchboard server that is restarting) are let through in order, fail together, and leave on
 * their own when their signal aborts or their time runs out, with nothing left behind.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ReadyGate } from "../../src/connection/ready-gate.js";
import { Connection } from "../../src/connection/connection.js";
import { McpClient } from "../../src/client/client.js";
import { ConnectionClosedError, OverloadError, RequestCancelledError, TransportError } from "../../src/jsonrpc/errors.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("ReadyGate", () => {
  it("lets every waiter through with the value, in the order they came, and empties", async () => {
    const gate = new ReadyGate<string>({ waitingFor: "the test" });
    const order: string[] = [];
    const waits = ["a", "b", "c"].map((name) => gate.wait().then((value) => order.push(`${name}:${value}`)));
    expect(gate.size).toBe(3);
    gate.open("up");
    await Promise.all(waits);
    expect(order).toEqual(["a:up", "b:up", "c:up"]);
    expect(gate.size).toBe(0);
  });

  it("is bounded: beyond the limit a wait fails at once with an OverloadError, and the others still pass", async () => {
    const gate = new ReadyGate({ waitingFor: "the connection to become ready", limit: 2 });
    const first = gate.wait();
    const second = gate.wait();
    const refused = await gate.wait().catch((e) => e);
    expect(refused).toBeInstanceOf(OverloadError);
    expect(refused.message).toBe("2 requests are already waiting for the connection to become ready");
    expect(refused.delivered).toBe(false);
    gate.open();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
  });

  it("an abort ends only that wait, with RequestCancelledError (delivered: false), and removes its listener", async () => {
    const gate = new ReadyGate({ waitingFor: 'server "a" to come up', server: "a" });
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    const aborted = gate.wait({ signal: controller.signal }).catch((e) => e);
    const other = gate.wait();
    controller.abort();
    const error = await aborted;
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toBe('Cancelled while waiting for server "a" to come up');
    expect(error).toMatchObject({ delivered: false, server: "a" });
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
    expect(gate.size).toBe(1);
    gate.open();
    await other;
  });

  it("a signal that is already aborted fails the wait at once instead of queueing it", async () => {
    const gate = new ReadyGate({ waitingFor: "the test" });
    await expect(gate.wait({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RequestCancelledError);
    expect(gate.size).toBe(0);
  });

  it("rejectAll fails every waiter with the error", async () => {
    const gate = new ReadyGate({ waitingFor: "the test" });
    const waits = [gate.wait(), gate.wait()].map((wait) => wait.catch((e) => e));
    const error = new ConnectionClosedError("gone");
    gate.rejectAll(error);
    expect(await Promise.all(waits)).toEqual([error, error]);
    expect(gate.size).toBe(0);
  });

  it("a timeout ends the wait with its error; a wait that ends otherwise leaves no timer", async () => {
    vi.useFakeTimers();
    const gate = new ReadyGate({ waitingFor: "the test" });
    const late = gate.wait({ timeout: { ms: 50, error: () => new TransportError("too late") } }).catch((e) => e);
    const served = gate.wait({ timeout: { ms: 1000, error: () => new TransportError("never") } });
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(50);
    expect((await late).message).toBe("too late");
    gate.open();
    await served;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a timeout longer than a timer can hold arms no timer (it would fire after 1 ms)", async () => {
    vi.useFakeTimers();
    const gate = new ReadyGate<number>({ waitingFor: "the test" });
    for (const ms of [Infinity, 2 ** 31]) {
      const wait = gate.wait({ timeout: { ms, error: () => new TransportError("fired") } });
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(10);
      gate.open(ms);
      await expect(wait).resolves.toBe(ms);
    }
  });
});

describe("requests before the connection is ready", () => {
  /** A connection whose server answers `initialize` only when `answer()` is called. */
  function slowStart(options: ConstructorParameters<typeof Connection>[1] = {}) {
    const server = new ScriptedServer();
    let answer = () => {};
    server.on("initialize", (request, s) => {
      answer = () =>
        s.send({
          jsonrpc: "2.0",
          id: request.id,
          result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "slow", version: "1" } },
        });
      return "silent";
    });
    const connection = new Connection(server.clientSide, { protocol: "legacy", ...options });
    const client = new McpClient(connection);
    const started = connection.start();
    return { server, connection, client, started, answer: () => answer() };
  }

  it("wait in a queue of at most maxQueuedRequests; one more fails at once with OverloadError", async () => {
    const { connection, client, started, answer } = slowStart({ maxQueuedRequests: 3 });
    const queued: Promise<unknown>[] = [];
    while (connection.stats().waiting < 3 && queued.length < 3) queued.push(client.callTool("echo", { text: String(queued.length) }));
    const refused = await client.callTool("echo", { text: "one too many" }).catch((e) => e);
    expect(refused).toBeInstanceOf(OverloadError);
    expect(connection.stats().waiting).toBe(3);
    answer();
    await started;
    const results = (await Promise.all(queued)) as { content: unknown[] }[];
    expect(results.map((r) => r.content[0])).toEqual(queued.map((_, i) => ({ type: "text", text: String(i) })));
    await client.close();
  });

  it("a queued request whose signal aborts leaves the queue; waitForReady: false fails at once", async () => {
    const { connection, client, started, answer } = slowStart();
    const before = connection.stats().waiting;
    const controller = new AbortController();
    const aborted = client.callTool("echo", {}, { signal: controller.signal }).catch((e) => e);
    expect(connection.stats().waiting).toBe(before + 1);
    controller.abort();
    expect(await aborted).toBeInstanceOf(RequestCancelledError);
    expect(connection.stats().waiting).toBe(before);
    const hurried = await client.callTool("echo", {}, { waitForReady: false }).catch((e) => e);
    expect(hurried).toBeInstanceOf(TransportError);
    expect(hurried.message).toMatch(/not ready, and the request asked not to wait/);
    expect(connection.stats().waiting).toBe(before);
    answer();
    await started;
    await client.close();
  });

  it("close() before ready fails every queued request with ConnectionClosedError", async () => {
    const { client, started } = slowStart();
    const queued = [client.callTool("echo"), client.listTools()].map((p) => p.catch((e) => e));
    const startFailed = started.catch((e) => e);
    await client.close();
    for (const error of await Promise.all(queued)) expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(await startFailed).toBeInstanceOf(ConnectionClosedError);
  });
});
