/**
 * docs/guide/switchboard.md, "Limits and faults": a request that times out or is cancelled lets go of its HTTP exchange, in both
 * eras. Before, the 2025 era only sent notifications/cancelled and left the POST waiting: 70 requests to
 * a server that never answers filled the keep-alive pool (64 sockets) and every later call timed out.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { connect, RequestCancelledError, RequestTimeoutError } from "../../src/index.js";
import type { StreamableHttpTransport } from "../../src/transports/streamable-http.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";
import { startHostileHttp, type HostileHttpServer } from "../fixtures/hostile-http.js";
import { MODERN_DISCOVER, result, startScriptedHttp } from "../fixtures/scripted-http.js";

const track = closeAfterEach();
const HUNG = 70;

/** A 2025 server whose `hang` tool never answers; `held` is the set of responses it sits on. */
async function hangingServer(): Promise<{ server: HostileHttpServer; held: Set<ServerResponse> }> {
  const held = new Set<ServerResponse>();
  const server = track(
    await startHostileHttp(({ body, res }) => {
      if (body?.method !== "tools/call" || body.params?.name !== "hang") return false;
      held.add(res);
      res.on("close", () => held.delete(res));
      return true;
    }),
  );
  return { server, held };
}

describe("2025 era over Streamable HTTP", () => {
  it(`${HUNG} requests that time out release their sockets within 2 s, and the next call succeeds`, async () => {
    const { server, held } = await hangingServer();
    const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
    const calls = Array.from({ length: HUNG }, () => client.callTool("hang", {}, { timeoutMs: 300 }).catch((e: unknown) => e));
    const errors = await Promise.all(calls);
    expect(errors.every((e) => e instanceof RequestTimeoutError)).toBe(true);
    await waitFor(() => held.size === 0, 2000);
    const transport = client.connection.transport as StreamableHttpTransport;
    expect(transport.exchanges.size).toBe(0);
    expect((await client.callTool("echo", { after: "timeouts" }, { timeoutMs: 5000 })).content).toEqual([{ type: "text", text: '{"after":"timeouts"}' }]);
    // The server was still told, once per request (the spec's way to cancel in this era).
    await waitFor(() => server.requests.filter((r) => r.body?.method === "notifications/cancelled").length === HUNG);
  });

  it(`${HUNG} requests cancelled by their signal release their sockets within 2 s, and the next call succeeds`, async () => {
    const { server, held } = await hangingServer();
    const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
    const controller = new AbortController();
    const calls = Array.from({ length: HUNG }, () => client.callTool("hang", {}, { signal: controller.signal }).catch((e: unknown) => e));
    await waitFor(() => held.size === 64); // the pool is full; the rest wait in the agent's queue
    controller.abort();
    const errors = await Promise.all(calls);
    expect(errors.every((e) => e instanceof RequestCancelledError)).toBe(true);
    await waitFor(() => held.size === 0, 2000);
    expect((await client.callTool("echo", {}, { timeoutMs: 5000 })).isError).toBeFalsy();
  });
});

describe("2026 era over Streamable HTTP", () => {
  it(`still cancels by aborting the exchange: ${HUNG} timed-out requests free the pool, no notifications/cancelled`, async () => {
    const server = track(
      await startScriptedHttp((request) => {
        const method = request.body?.method;
        if (method === "server/discover") return result(request, MODERN_DISCOVER);
        if (method === "tools/call" && request.body?.params?.name === "hang") return { hang: true };
        if (method === "tools/call") return result(request, { resultType: "complete", content: [{ type: "text", text: "ok" }] });
        return { status: 202 };
      }),
    );
    const client = track(await connect({ url: server.url }, { protocol: "2026-07-28", autoListen: false }));
    // A deadline long enough for the pool to fill first (64 connections take a while on a loaded
    // machine: with 300 ms, only 57 had reached the server when the calls timed out).
    const calls = Array.from({ length: HUNG }, () => client.callTool("hang", {}, { timeoutMs: 3000 }).catch((e: unknown) => e));
    const hung = () => server.posts("tools/call").map((r) => r.body?.id);
    await waitFor(() => hung().length >= 64, 2500);
    expect((await Promise.all(calls)).every((e) => e instanceof RequestTimeoutError)).toBe(true);
    // Those that reached the server were dropped by the client (the rest never left the agent's queue).
    await waitFor(() => server.abandoned.length === hung().length, 2000);
    expect(hung().length).toBeGreaterThanOrEqual(64);
    expect((await client.callTool("plain", {}, { timeoutMs: 5000 })).content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.posts("notifications/cancelled")).toHaveLength(0);
  });
});
