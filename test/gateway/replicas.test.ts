/**
 * Two gateway replicas in this process, each its own board, fleet member and Redis connections, on one
 * real Redis: a session opened on A is served on B (no sticky sessions), a log level set through A
 * filters B's GET stream, A's board's messages reach a stream held by B, `Last-Event-ID` resumes on B
 * a stream begun on A, DELETE through B ends the session on A, and a principal cannot use another's
 * session through a replica that has not seen it, a cancel sent to B aborts the call running on A, a
 * client's answer to a server request lands on A and settles the call on B that asked it, a 2026
 * client's retry of an input round reaches the replica holding its call, and
 * with Redis away A serves what it holds, writing it back when Redis returns; a session used on B
 * outlives sessionIdleMs in Redis, and one no replica uses expires. (Behind haproxy, in child processes: haproxy.test.ts.)
 */
import { createParser } from "eventsource-parser";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { PASS_THROUGH_CAPABILITIES, serveBoard, type Gateway, type ServeBoardOptions } from "../../src/gateway/index.js";
import { Switchboard, type SwitchboardInit } from "../../src/switchboard/switchboard.js";
import { createAskingServer } from "../fixtures/asking-server.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { waitFor } from "../helpers/processes.js";
import { echo, initialize, post } from "./helpers.js";

interface Replica {
  gateway: Gateway;
  board: Switchboard;
}

interface Stream {
  events: Array<{ id: string | undefined; message: { method: string; params?: Record<string, unknown> } }>;
  close(): void;
}

/** A GET stream read with eventsource-parser: every event with its id. */
async function openStream(url: string, session: string, headers: Record<string, string> = {}): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": session, ...headers }, signal: abort.signal });
  expect(response.status).toBe(200);
  const events: Stream["events"] = [];
  const parser = createParser({ onEvent: (event) => events.push({ id: event.id, message: JSON.parse(event.data) }) });
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  })().catch(() => {});
  return { events, close: () => abort.abort() };
}

const rpc = (id: number, method: string, params: object = {}) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe.skipIf(!redisAvailable)("gateway replicas on one fleet (real Redis)", () => {
  let redis: TestRedis;
  const opened: Array<{ replica: Replica; fleet: RedisFleet }> = [];
  const streams: Stream[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    for (const { replica, fleet } of opened.splice(0)) {
      await replica.gateway.close();
      await replica.board.stop();
      await fleet.close();
    }
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function replica(options: ServeBoardOptions = {}, servers: SwitchboardInit["servers"] = { echo }): Promise<Replica> {
    const fleet = redisFleet({ url: redis.url }, "gwrep");
    // As `mcp-switchboard serve` makes its board: upstream servers may ask the downstream clients.
    const board = new Switchboard({ servers, fleet }, { client: { capabilities: PASS_THROUGH_CAPABILITIES } });
    await board.start();
    await fleet.ready();
    const gateway = await serveBoard(board, options);
    const made = { gateway, board };
    opened.push({ replica: made, fleet });
    return made;
  }

  async function open(url: string, headers: Record<string, string> = {}): Promise<string> {
    const response = await post(url, initialize, headers);
    expect(response.status).toBe(200);
    return response.headers.get("mcp-session-id")!;
  }

  async function stream(url: string, session: string, headers: Record<string, string> = {}): Promise<Stream> {
    const opened = await openStream(url, session, headers);
    streams.push(opened);
    return opened;
  }

  it("a session opened on A is served on B; B's stream hears A's board at the level set through A; DELETE on B ends it on A", async () => {
    const a = await replica();
    const b = await replica();
    const session = await open(a.gateway.url);
    const call = await post(b.gateway.url, rpc(2, "tools/call", { name: "echo__add", arguments: { a: 2, b: 3 } }), { "mcp-session-id": session });
    expect(call.status).toBe(200);
    expect(await call.json()).toMatchObject({ result: { content: [{ type: "text", text: "5" }] } });
    expect(b.gateway.sessions).toBe(1);

    const setLevel = await post(a.gateway.url, rpc(3, "logging/setLevel", { level: "warning" }), { "mcp-session-id": session });
    expect(setLevel.status).toBe(200);
    const onB = await stream(b.gateway.url, session);
    // B learned the level from A (through Redis): the debug message is filtered, the error passes.
    await waitFor(
      () => {
        a.board.emit("log", { server: "echo", params: { level: "debug", data: "quiet" } });
        a.board.emit("log", { server: "echo", params: { level: "error", data: "loud" } });
        return onB.events.length > 0;
      },
      5_000,
      50,
    );
    expect(onB.events.every((e) => e.message.params?.data === "loud")).toBe(true);
    expect(onB.events[0].message.params).toEqual({ level: "error", data: "loud", logger: "echo" });
    expect(Number(onB.events[0].id)).toBeGreaterThan(0);

    a.board.emit("listsChanged", { server: "echo" });
    await waitFor(() => onB.events.some((e) => e.message.method === "notifications/tools/list_changed"), 5_000, 50);

    const ended = await fetch(b.gateway.url, { method: "DELETE", headers: { "mcp-session-id": session } });
    expect(ended.status).toBe(200);
    // A hears of it on the fleet's channel, which Redis has sent before B answered the DELETE.
    await waitFor(() => a.gateway.sessions === 0, 5_000, 20);
    const after = await post(a.gateway.url, rpc(4, "ping"), { "mcp-session-id": session });
    expect(after.status).toBe(404);
  });

  it("Last-Event-ID: a stream begun on A resumes on B with the messages it missed, in order", async () => {
    const a = await replica();
    const b = await replica();
    const session = await open(a.gateway.url);
    const onA = await stream(a.gateway.url, session);
    await post(a.gateway.url, rpc(2, "logging/setLevel", { level: "info" }), { "mcp-session-id": session });
    a.board.emit("log", { server: "echo", params: { level: "info", data: "first" } });
    await waitFor(() => onA.events.length > 0, 5_000, 50);
    expect(onA.events.map((e) => e.message.params?.data)).toEqual(["first"]);
    const last = onA.events.at(-1)!.id!;
    onA.close();
    b.board.emit("log", { server: "echo", params: { level: "info", data: "missed 1" } });
    b.board.emit("log", { server: "echo", params: { level: "info", data: "missed 2" } });
    // Every replica hears every message; B holds the missed ones once it has heard them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const onB = await stream(b.gateway.url, session, { "last-event-id": last });
    await waitFor(() => onB.events.length >= 2, 5_000, 50);
    expect(onB.events.slice(0, 2).map((e) => e.message.params?.data)).toEqual(["missed 1", "missed 2"]);
    const ids = onB.events.map((e) => Number(e.id));
    expect(ids[0]).toBeGreaterThan(Number(last));
    expect(ids[1]).toBe(ids[0] + 1);
  });

  it("a cancel that reaches B aborts the call running on A, and so the upstream call", async () => {
    const a = await replica();
    const b = await replica();
    const session = await open(a.gateway.url);
    const call = post(a.gateway.url, rpc(7, "tools/call", { name: "echo__slow", arguments: { ms: 20_000 } }), { "mcp-session-id": session });
    await waitFor(() => a.board.status().echo.inFlight === 1, 5_000, 20);
    const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "changed my mind" } });
    expect((await post(b.gateway.url, cancel, { "mcp-session-id": session })).status).toBe(202);
    // Without the cancel passed on through the fleet, the upstream call would hold its slot for 20 s.
    await waitFor(() => a.board.status().echo.inFlight === 0, 5_000, 20);
    expect(await (await call).json()).toMatchObject({ id: 7, error: { message: "Request cancelled" } });
  });

  it("a call on B asks the client (declared through A), whose answer lands on A and reaches the call on B", async () => {
    const upstream = await startStreamableHttpServer({ stateful: true, createServer: () => createAskingServer() });
    try {
      const servers = { asking: { url: upstream.url } };
      const [a, b] = [await replica({}, servers), await replica({}, servers)];
      const init = rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: { sampling: {} }, clientInfo: { name: "raw", version: "1" } });
      const session = (await post(a.gateway.url, init)).headers.get("mcp-session-id")!;
      const call = await post(b.gateway.url, rpc(5, "tools/call", { name: "asking__ask_model", arguments: { question: "2+2?" } }), {
        "mcp-session-id": session,
      });
      expect(call.headers.get("content-type")).toBe("text/event-stream");
      const messages: Array<{ id?: string | number; method?: string; result?: { content: unknown } }> = [];
      const parser = createParser({ onEvent: (event) => messages.push(JSON.parse(event.data)) });
      const reader = call.body!.getReader();
      const decoder = new TextDecoder();
      const until = async (found: () => boolean) => {
        while (!found()) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the call's stream ended after ${JSON.stringify(messages)}`);
          parser.feed(decoder.decode(value, { stream: true }));
        }
      };
      // B knows from Redis that the client declared sampling (it was told in A's initialize), so it asks.
      await until(() => messages.some((message) => message.method === "sampling/createMessage"));
      const asked = messages.find((message) => message.method === "sampling/createMessage")!;
      const answer = JSON.stringify({
        jsonrpc: "2.0",
        id: asked.id,
        result: { role: "assistant", model: "scripted", content: { type: "text", text: "four" } },
      });
      expect((await post(a.gateway.url, answer, { "mcp-session-id": session })).status).toBe(202);
      await until(() => messages.some((message) => message.id === 5));
      expect(messages.find((message) => message.id === 5)!.result!.content).toEqual([{ type: "text", text: "four" }]);
    } finally {
      await upstream.close();
    }
  });

  it("a 2026 client's input round begun on A is answered through B; a state no replica holds is -32602", async () => {
    const upstream = await startStreamableHttpServer({ stateful: true, createServer: () => createAskingServer() });
    try {
      const servers = { asking: { url: upstream.url } };
      const [a, b] = [await replica({}, servers), await replica({}, servers)];
      const modern = (url: string, id: number, extra: Record<string, unknown> = {}) =>
        post(
          url,
          rpc(id, "tools/call", {
            name: "asking__ask_model",
            arguments: { question: "2+2?" },
            ...extra,
            _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { sampling: {} } },
          }),
          { "mcp-protocol-version": "2026-07-28" },
        ).then((response) => response.json() as Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>);
      const first = (await modern(a.gateway.url, 1)).result!;
      expect(first.resultType).toBe("input_required");
      const [key] = Object.keys(first.inputRequests as object);
      const inputResponses = { [key]: { role: "assistant", model: "scripted", content: { type: "text", text: "four" } } };
      // The call waits in A; B does not hold its state and asks the fleet, and A runs the round.
      const done = await modern(b.gateway.url, 2, { requestState: first.requestState, inputResponses });
      expect(done.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "four" }] });
      const reused = await modern(b.gateway.url, 3, { requestState: first.requestState, inputResponses });
      expect(reused.error).toMatchObject({ code: -32602, message: expect.stringContaining("requestState") });
    } finally {
      await upstream.close();
    }
  });

  it("a 2026 round relayed from B to A sends the call's logs back to B's response, at the retry's level, those between rounds first", async () => {
    const upstream = await startStreamableHttpServer({ stateful: true, createServer: () => createAskingServer() });
    try {
      const servers = { asking: { url: upstream.url } };
      const [a, b] = [await replica({}, servers), await replica({}, servers)];
      /** A raw 2026 tools/call at log level warning; its answer's messages in order, JSON or an event stream. */
      const call = async (url: string, id: number, extra: Record<string, unknown> = {}, tool = "asking__ask_then_log") => {
        const meta = {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
          "io.modelcontextprotocol/logLevel": "warning",
        };
        const response = await post(url, rpc(id, "tools/call", { name: tool, arguments: {}, ...extra, _meta: meta }), {
          "mcp-protocol-version": "2026-07-28",
        });
        const text = await response.text();
        const lines = response.headers.get("content-type")?.includes("text/event-stream")
          ? text
              .split("\n")
              .filter((line) => line.startsWith("data: "))
              .map((line) => line.slice(6))
          : [text];
        return lines.map((line) => JSON.parse(line) as { method?: string; params?: { data?: string }; result?: Record<string, unknown> });
      };
      const first = await call(a.gateway.url, 1);
      expect(first.map((m) => m.params?.data ?? m.result?.resultType)).toEqual(["before asking", "input_required"]);
      const asked = first[1].result!;
      const [key] = Object.keys(asked.inputRequests as object);
      const retry = await call(b.gateway.url, 2, {
        requestState: asked.requestState,
        inputResponses: { [key]: { action: "accept", content: { name: "Ada" } } },
      });
      expect(retry.map((m) => m.params?.data ?? m.result?.resultType)).toEqual(["after Ada answered", "complete"]);

      // It logs 30 ms after asking, while no request of the client is open: A holds the log for the next round.
      const waiting = await call(a.gateway.url, 3, {}, "asking__log_while_asking");
      expect(waiting.map((m) => m.params?.data ?? m.result?.resultType)).toEqual(["input_required"]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const waitingFor = waiting[0].result!;
      const [waitingKey] = Object.keys(waitingFor.inputRequests as object);
      const resumed = await call(
        b.gateway.url,
        4,
        { requestState: waitingFor.requestState, inputResponses: { [waitingKey]: { action: "accept", content: { name: "Ada" } } } },
        "asking__log_while_asking",
      );
      expect(resumed.map((m) => m.params?.data ?? m.result?.resultType)).toEqual(["while waiting", "complete"]);
    } finally {
      await upstream.close();
    }
  });

  it("Redis away: A serves a session it opens, its stream hears its board unnumbered; back, B finds the session", async () => {
    const a = await replica();
    const b = await replica();
    await redis.kill();
    await waitFor(() => !(opened[0].fleet.healthy || opened[1].fleet.healthy), 5_000, 20);
    const session = await open(a.gateway.url);
    expect((await post(a.gateway.url, rpc(2, "logging/setLevel", { level: "info" }), { "mcp-session-id": session })).status).toBe(200);
    const onA = await stream(a.gateway.url, session);
    a.board.emit("log", { server: "echo", params: { level: "info", data: "while Redis is away" } });
    await waitFor(() => onA.events.length > 0, 5_000, 20);
    expect(onA.events[0]).toEqual({ id: undefined, message: expect.objectContaining({ params: expect.objectContaining({ data: "while Redis is away" }) }) });

    await redis.restart();
    // A writes the session back once its subscription is made again; then B reads it there.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = (await post(b.gateway.url, rpc(3, "ping"), { "mcp-session-id": session })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });

  it("the TTL: use on B keeps the session alive in Redis past sessionIdleMs; unused by every replica, it expires", async () => {
    const a = await replica({ sessionIdleMs: 600 });
    const b = await replica({ sessionIdleMs: 600 });
    const session = await open(a.gateway.url);
    const until = Date.now() + 1_500;
    for (let id = 10; Date.now() < until; id++) {
      expect((await post(b.gateway.url, rpc(id, "ping"), { "mcp-session-id": session })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A let its idle copy go long ago; it reads the session again from Redis, where B kept it.
    expect(a.gateway.sessions).toBe(0);
    expect((await post(a.gateway.url, rpc(2, "ping"), { "mcp-session-id": session })).status).toBe(200);
    await waitFor(() => a.gateway.sessions === 0 && b.gateway.sessions === 0, 5_000, 50);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await post(b.gateway.url, rpc(3, "ping"), { "mcp-session-id": session })).status).toBe(404);
  });

  it("a session is found on another replica only by the principal that opened it", async () => {
    const auth = { apiKeys: { "key-ada": "ada", "key-bob": "bob" } };
    const a = await replica({ auth });
    const b = await replica({ auth });
    const session = await open(a.gateway.url, { authorization: "Bearer key-ada" });
    const asBob = await post(b.gateway.url, rpc(2, "ping"), { "mcp-session-id": session, authorization: "Bearer key-bob" });
    expect(asBob.status).toBe(404);
    const asAda = await post(b.gateway.url, rpc(3, "ping"), { "mcp-session-id": session, authorization: "Bearer key-ada" });
    expect(asAda.status).toBe(200);
    const unknown = await post(b.gateway.url, rpc(4, "ping"), { "mcp-session-id": "no-such-session", authorization: "Bearer key-ada" });
    expect(unknown.status).toBe(404);
  });
});

describe.skipIf(redisAvailable)("gateway replicas", () => {
  it.skip(INSTALL_REDIS, () => {});
});
