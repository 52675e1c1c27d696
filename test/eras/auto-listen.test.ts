/**
 * The 2026 era's automatic listen: a ready connection opens one `subscriptions/listen` for the list
 * kinds the server advertises `listChanged` for, so change events (and the caches that rely on them)
 * work as in the 2025 era without the user asking. It never fails or delays `connect()`, re-listens
 * after a drop, and is gone after `close()`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, McpClient } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { DISCOVER_RESULT, heldSubscriptions, modernServer, replyError, routedIds } from "../helpers/modern-server.js";

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const SID = "io.modelcontextprotocol/subscriptionId";
const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

async function open(server: ScriptedServer, options: Parameters<typeof connect>[1] = {}): Promise<McpClient> {
  const client = await connect(server.clientSide, options);
  clients.push(client);
  return client;
}

/** A 2026 server advertising `capabilities`, whose listens acknowledge what was asked (unless `ack` is false). */
function serverWith(capabilities: Record<string, unknown>, ack = true): ScriptedServer {
  const server = modernServer();
  server.on("server/discover", () => ({ ...DISCOVER_RESULT, capabilities }));
  server.on("subscriptions/listen", (request, s) => {
    if (ack)
      s.notify("notifications/subscriptions/acknowledged", {
        notifications: (request.params as { notifications: unknown }).notifications,
        _meta: { [SID]: request.id },
      });
    return "silent";
  });
  return server;
}

const listens = (server: ScriptedServer) => server.messages("subscriptions/listen") as JsonRpcRequest[];

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await tick(5);
  }
}

/** Timers alive in the process (Node's own count), to check nothing is left armed. */
const liveTimeouts = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("automatic listen (2026 era)", () => {
  it("listens for exactly the kinds the server advertises listChanged for; a list_changed on it drops the cached tool list", async () => {
    const server = serverWith({ tools: { listChanged: true }, resources: { listChanged: true, subscribe: true }, prompts: {} });
    const client = await open(server);
    await until(() => listens(server).length === 1);
    expect((listens(server)[0].params as { notifications: unknown }).notifications).toEqual({ toolsListChanged: true, resourcesListChanged: true });
    let changed = 0;
    client.on("toolsChanged", () => changed++);
    await client.listTools();
    await client.listTools(); // cached: ttlMs 5000
    expect(server.messages("tools/list")).toHaveLength(1);
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: listens(server)[0].id } });
    await tick();
    expect(changed).toBe(1);
    await client.listTools();
    expect(server.messages("tools/list")).toHaveLength(2);
  });

  it("opens none with autoListen: false, for a server advertising no listChanged, or in the 2025 era", async () => {
    const optedOut = serverWith({ tools: { listChanged: true } });
    await open(optedOut, { autoListen: false });
    const quiet = serverWith({ tools: {}, resources: { subscribe: true } });
    await open(quiet);
    const old = new ScriptedServer();
    old.capabilities = { tools: { listChanged: true } };
    const legacy = await open(old);
    expect(legacy.era).toBe("legacy");
    await tick(30);
    expect(listens(optedOut)).toHaveLength(0);
    expect(listens(quiet)).toHaveLength(0);
    expect(listens(old)).toHaveLength(0);
  });

  it("a refused automatic listen is an error event; connect() resolves and the connection works", async () => {
    const server = serverWith({ tools: { listChanged: true } });
    let release: (() => void) | undefined;
    server.on("subscriptions/listen", (request, s) => {
      release = () => replyError(s, request.id, -32603, "Subscription limit reached");
      return "silent";
    });
    const client = await open(server); // resolves while the listen is still unanswered
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    await until(() => release !== undefined);
    release!();
    await until(() => errors.length > 0);
    expect(errors[0].message).toMatch(/automatic subscriptions\/listen .*Subscription limit reached/);
    expect((await client.callTool("echo", { text: "still fine" })).content).toEqual([{ type: "text", text: "still fine" }]);
    expect(client.connection.stats()).toEqual({ pending: 0, timerArmed: false, waiting: 0, inbound: 0 });
  });

  it("after a drop it listens again and announces the kinds as changed (notifications may have been missed)", async () => {
    const server = serverWith({ tools: { listChanged: true }, prompts: { listChanged: true } });
    const client = await open(server);
    await until(() => listens(server).length === 1);
    const events: string[] = [];
    client.on("toolsChanged", () => events.push("tools"));
    client.on("promptsChanged", () => events.push("prompts"));
    client.on("resourcesChanged", () => events.push("resources"));
    server.notify("notifications/cancelled", { requestId: listens(server)[0].id, reason: "server restarting its listeners" });
    await until(() => events.length === 2); // default backoff: 100 ms
    expect(listens(server)).toHaveLength(2);
    expect(events.sort()).toEqual(["prompts", "tools"]);
    // The new stream is the one routed: a notification tagged with its id reaches the subscription,
    // one tagged with the dropped stream's (stale) id does not. (Connection events fire for both.)
    const [auto] = heldSubscriptions(client);
    const routed = routedIds(auto);
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: listens(server)[0].id } });
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: listens(server)[1].id } });
    await tick();
    expect(routed).toEqual([listens(server)[1].id]);
  });

  it("close() ends it: no pending request, timer or listener is left, even before the acknowledgement", async () => {
    const timersBefore = liveTimeouts();
    const acked = serverWith({ tools: { listChanged: true } });
    const a = await open(acked);
    const silent = serverWith({ tools: { listChanged: true } }, false); // never acknowledges: the ack timer is armed
    const b = await open(silent);
    await until(() => listens(acked).length === 1 && listens(silent).length === 1);
    const errors: Error[] = [];
    b.on("error", (e) => errors.push(e));
    await a.close();
    await b.close();
    await tick();
    for (const client of [a, b]) {
      // The transport's close ends the stream (stdio: the process goes; HTTP: the fetch is aborted).
      expect(client.connection.stats()).toEqual({ pending: 0, timerArmed: false, waiting: 0, inbound: 0 });
      expect(client.connection.listenerCount("toolsChanged")).toBe(0);
    }
    expect(errors).toEqual([]); // closing is not a failure of the listen
    expect(liveTimeouts()).toBeLessThanOrEqual(timersBefore);
  });
});
