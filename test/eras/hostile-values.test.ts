/**
 * Values from a server or from configuration that used to make hot loops or unbounded fan-out:
 * a pollIntervalMs of 0 or above 2^31-1, more inputRequests than anyone can answer, timeouts that
 * are infinite or too large for setTimeout (which fires after 1 ms for those).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { connect, ProtocolError } from "../../src/index.js";
import { modernServer } from "../helpers/modern-server.js";

// Registered first so it runs after the clients are closed (after-hooks run in reverse).
afterEach(() => {
  vi.restoreAllMocks();
});
const track = closeAfterEach();

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

function pollingServer(pollIntervalMs: number) {
  const server = modernServer();
  server.on("tools/call", () => ({ resultType: "task", task: { taskId: "t-1", status: "working", pollIntervalMs } }));
  server.on("tasks/get", () => ({ resultType: "complete", task: { taskId: "t-1", status: "working", pollIntervalMs } }));
  server.on("tasks/cancel", () => ({ resultType: "complete" }));
  return server;
}

async function pollsWithin(pollIntervalMs: number, ms: number): Promise<number> {
  const server = pollingServer(pollIntervalMs);
  const client = await connect(server.clientSide, { tasks: true });
  track(client);
  const controller = new AbortController();
  const call = client.callTool("long", {}, { signal: controller.signal }).catch(() => {});
  await tick(ms);
  controller.abort();
  await call;
  return server.messages("tasks/get").length;
}

describe("hostile or extreme values", () => {
  it("pollIntervalMs 0 is clamped to 100 ms (no tight polling loop)", async () => {
    expect(await pollsWithin(0, 350)).toBeLessThanOrEqual(4);
  });

  it("pollIntervalMs above 2^31-1 is clamped to 60 s (not a 1 ms timer)", async () => {
    expect(await pollsWithin(2 ** 31, 200)).toBe(0);
  });

  it("an input_required with more than 32 inputRequests is refused before any handler runs", async () => {
    const server = modernServer();
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, { method: "roots/list" }]));
    server.on("tools/call", () => ({ resultType: "input_required", inputRequests: many }));
    let asked = 0;
    const client = await connect(server.clientSide, { onRoots: () => (asked++, []) });
    track(client);
    const error = await client.callTool("x").catch((e) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toMatch(/33 inputRequests; at most 32/);
    expect(asked).toBe(0);
  });

  it("requestTimeoutMs: Infinity means no acknowledgement deadline for a listen, not a 1 ms one", async () => {
    const server = modernServer();
    server.on("subscriptions/listen", () => "silent"); // never acknowledges
    const client = await connect(server.clientSide, { requestTimeoutMs: Infinity, autoListen: false });
    track(client);
    let settled = false;
    void client.connection.listen({ toolsListChanged: true }).then(
      () => (settled = true),
      () => (settled = true),
    );
    await tick(50);
    expect(settled).toBe(false);
  });

  it("a timeout above 2^31-1 ms does not re-arm the request table's timer every millisecond", async () => {
    const server = modernServer();
    server.on("tools/call", () => "silent");
    const client = await connect(server.clientSide);
    track(client);
    const spy = vi.spyOn(globalThis, "setTimeout");
    const call = client.callTool("x", {}, { timeoutMs: 2 ** 32 }).catch(() => {});
    await tick(60);
    const armed = spy.mock.calls.filter(([, ms]) => ms !== 60).length;
    expect(armed).toBeLessThanOrEqual(3);
    await client.close();
    await call;
  });
});
