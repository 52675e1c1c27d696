/**
 * docs/guide/switchboard.md, "Limits and faults": one resumable SSE reader for a POST's reply and the GET stream. Both count
 * re-opening attempts the same way (attempts in a row that bring nothing), honour the server's `retry`
 * within bounds, drop replays with a bounded filter of recent event ids, and use the one backoff formula.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { connect, StreamLostError } from "../../src/index.js";
import { StreamableHttpTransport } from "../../src/transports/streamable-http.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";
import { startHostileHttp } from "../fixtures/hostile-http.js";

const track = closeAfterEach();
const note = (data: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } })}\n\n`;
const answer = (id: unknown, text: string) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } })}\n\n`;

describe("the server's retry", () => {
  it("a POST stream resumes after a retry too large for a timer (within maxRetryMs), and the call completes", async () => {
    let posts = 0;
    const server = track(
      await startHostileHttp(({ method, body, res, headers }) => {
        if (method === "POST" && body?.method === "tools/call") {
          posts++;
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`retry: 4294967296000\nid: 1\ndata: \n\n`, () => setTimeout(() => res.destroy(), 10));
          return true;
        }
        if (method === "GET" && headers["last-event-id"] === "1") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(answer(1, "resumed"));
          return true;
        }
        return false;
      }),
    );
    const transport = new StreamableHttpTransport({ url: server.url, maxRetryMs: 200 });
    const client = track(await connect(transport, { protocol: "legacy" }));
    expect((await client.callTool("x", {}, { timeoutMs: 10_000 })).content).toEqual([{ type: "text", text: "resumed" }]);
    expect(posts).toBe(1);
  });
});

describe("re-opening attempts, counted alike for POST and GET streams", () => {
  it("a GET stream the server keeps closing at once is given up after maxResumeAttempts, with an error event", async () => {
    let gets = 0;
    const server = track(
      await startHostileHttp(({ method, res }) => {
        if (method !== "GET") return false;
        gets++;
        res.writeHead(200, { "content-type": "text/event-stream" }).end();
        return true;
      }),
    );
    const transport = new StreamableHttpTransport({ url: server.url, maxResumeAttempts: 3, resumeBackoff: { initialMs: 5, maxMs: 20 } });
    const client = track(await connect(transport, { protocol: "legacy" }));
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    await waitFor(() => errors.length > 0);
    expect(errors[0].message).toMatch(/server-to-client event stream at .* could not be re-opened: 3 attempts to re-open it failed/);
    const seen = gets;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gets).toBe(seen); // no more attempts
    expect(gets).toBe(4); // the first GET and 3 re-openings
  });

  it("a POST stream that keeps breaking without bringing anything fails after maxResumeAttempts", async () => {
    const server = track(
      await startHostileHttp(({ method, body, res }) => {
        if ((method === "POST" && body?.method === "tools/call") || method === "GET") {
          if (method === "GET" && body === undefined && res.req.headers["last-event-id"] === undefined) return false;
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(method === "POST" ? "id: 1\ndata: \n\n" : ": nothing\n\n", () => setTimeout(() => res.destroy(), 5));
          return true;
        }
        return false;
      }),
    );
    const transport = new StreamableHttpTransport({ url: server.url, maxResumeAttempts: 2, resumeBackoff: { initialMs: 5, maxMs: 20 } });
    const client = track(await connect(transport, { protocol: "legacy" }));
    const error = await client.callTool("x", {}, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamLostError);
    expect((error as Error).message).toMatch(/before its response; 2 attempts to re-open it failed\. The request may have run\./);
  });
});

describe("replays", () => {
  it("events a resumed POST stream replays are dropped, so each arrives once", async () => {
    let callId: unknown;
    const server = track(
      await startHostileHttp(({ method, body, res }) => {
        const replay = (stream: ServerResponse, end: boolean) => {
          stream.writeHead(200, { "content-type": "text/event-stream" });
          stream.write(`id: 1\n${note("one")}id: 2\n${note("two")}`);
          if (end) stream.end(`id: 3\n${answer(callId, "done")}`);
          else stream.write(": cut\n\n", () => setTimeout(() => stream.destroy(), 10));
        };
        if (method === "POST" && body?.method === "tools/call") {
          callId = body.id;
          return (replay(res, false), true);
        }
        if (method === "GET" && res.req.headers["last-event-id"] === "2") return (replay(res, true), true);
        return false;
      }),
    );
    const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
    const logs: unknown[] = [];
    client.on("log", (l) => logs.push(l.data));
    expect((await client.callTool("x", {}, { timeoutMs: 10_000 })).content).toEqual([{ type: "text", text: "done" }]);
    expect(logs).toEqual(["one", "two"]);
  });

  for (const [what, id, why] of [
    ["too long", "i".repeat(5000), /Event id of 5000 characters is longer than 1024; not used to resume/],
    ["that cannot go in a header", "id-中文-\u0001", /Event id of 7 characters cannot go in a Last-Event-ID header; not used to resume/],
  ] as const) {
    it(`an event id ${what} is not used as a cursor (an error event says so); its message still arrives`, async () => {
      const server = track(
        await startHostileHttp(({ method, body, res }) => {
          if (method !== "POST" || body?.method !== "tools/call") return false;
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`id: ${id}\n${note("carried")}`, () => setTimeout(() => res.destroy(), 10));
          return true;
        }),
      );
      const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
      const logs: unknown[] = [];
      const errors: Error[] = [];
      client.on("log", (l) => logs.push(l.data));
      client.on("error", (e) => errors.push(e));
      const error = await client.callTool("x", {}, { timeoutMs: 10_000 }).catch((e: unknown) => e);
      expect(logs).toEqual(["carried"]);
      expect(errors.some((e) => why.test(e.message))).toBe(true);
      expect((error as Error).message).toMatch(/the server sent no event ids to resume from/);
      expect(server.requests.filter((r) => r.headers["last-event-id"] !== undefined)).toHaveLength(0);
    });
  }
});
