/**
 * `subscriptions/listen` (2026 era) and its 2025 counterparts: acknowledgement, routing by
 * subscription id, the ways a stream ends, re-listening, resource subscriptions in both eras, and the
 * connection events the result cache relies on.
 */
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";
import { connect, McpClient, MethodNotSupportedError, type Subscription } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { heldSubscriptions, modernServer, replyError, routedIds } from "../helpers/modern-server.js";
import { MODERN_DISCOVER, result, startScriptedHttp } from "../fixtures/scripted-http.js";

const track = closeAfterEach();

const SID = "io.modelcontextprotocol/subscriptionId";

/** A 2026 server whose listen acknowledges what it supports (no prompts) and keeps the stream open. */
function listeningServer(): ScriptedServer {
  const server = modernServer();
  server.on("subscriptions/listen", (request, s) => {
    const asked = (request.params as { notifications: Record<string, unknown> }).notifications;
    const { promptsListChanged: _dropped, ...honoured } = asked;
    s.notify("notifications/tools/list_changed", {}); // untagged: request-scoped, not this listen's
    s.notify("notifications/subscriptions/acknowledged", { notifications: honoured, _meta: { [SID]: request.id } });
    return "silent";
  });
  return server;
}

async function open(server: ScriptedServer, options: Parameters<typeof connect>[1] = {}): Promise<McpClient> {
  const client = await connect(server.clientSide, options);
  track(client);
  return client;
}

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

describe("subscriptions/listen", () => {
  it("checklist 20: listen resolves only after the acknowledgement and exposes the honoured filter", async () => {
    const server = modernServer();
    let ack: (() => void) | undefined;
    server.on("subscriptions/listen", (request, s) => {
      ack = () => s.notify("notifications/subscriptions/acknowledged", { notifications: { toolsListChanged: true }, _meta: { [SID]: request.id } });
      return "silent";
    });
    const client = await open(server);
    let resolved = false;
    const pending = client.listen({ toolsListChanged: true, promptsListChanged: true }).then((s) => ((resolved = true), s));
    await tick(30);
    expect(resolved).toBe(false);
    ack!();
    const subscription = await pending;
    expect(subscription.honoured).toEqual({ toolsListChanged: true });
    expect(subscription.requested).toEqual({ toolsListChanged: true, promptsListChanged: true });
    const listen = server.messages("subscriptions/listen")[0] as JsonRpcRequest;
    expect(listen.params).toMatchObject({
      notifications: { toolsListChanged: true, promptsListChanged: true },
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    });
  });

  it("checklist 20: an error before the acknowledgement is a refusal", async () => {
    const server = modernServer();
    server.on("subscriptions/listen", (request, s) => replyError(s, request.id, -32603, "Subscription limit reached"));
    const client = await open(server);
    await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(/Subscription limit reached/);
  });

  it("checklist 21: notifications are routed by subscription id, type-exact; untagged ones belong to no listen", async () => {
    const server = listeningServer();
    const client = await open(server);
    const a = await client.listen({ toolsListChanged: true });
    const b = await client.listen({ resourcesListChanged: true });
    const gotA: string[] = [];
    const gotB: string[] = [];
    a.on("notification", (method) => gotA.push(method));
    b.on("notification", (method) => gotB.push(method));
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: a.id } });
    server.notify("notifications/resources/list_changed", { _meta: { [SID]: b.id } });
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: String(a.id) } }); // a string: not a's number id
    server.notify("notifications/tools/list_changed", {});
    await tick();
    expect(typeof a.id).toBe("number");
    expect(gotA).toEqual(["notifications/tools/list_changed"]);
    expect(gotB).toEqual(["notifications/resources/list_changed"]);
  });

  it("checklist 22: closing on stdio sends notifications/cancelled; a graceful result ends it as 'graceful'", async () => {
    const server = listeningServer();
    const client = await open(server);
    const subscription = await client.listen({ toolsListChanged: true });
    await subscription.close();
    expect(await subscription.closed).toBe("local");
    await tick();
    expect((server.messages("notifications/cancelled")[0] as unknown as { params: { requestId: unknown } }).params.requestId).toBe(subscription.id);

    const graceful = await client.listen({ toolsListChanged: true });
    server.send({ jsonrpc: "2.0", id: graceful.id!, result: { resultType: "complete", _meta: { [SID]: graceful.id } } });
    expect(await graceful.closed).toBe("graceful");
  });

  it("checklist 22: a server cancel is a 'remote' end: the client listens again, with backoff", async () => {
    const server = listeningServer();
    const client = await open(server, { autoListen: false }); // only this test's listens on the wire
    const subscription = await client.listen({ toolsListChanged: true }, { backoff: { initialMs: 20, maxMs: 100 } });
    const firstId = subscription.id;
    const drops: Error[] = [];
    subscription.on("drop", (e) => drops.push(e));
    const relistened = new Promise((resolve) => subscription.on("relisten", resolve));
    server.notify("notifications/cancelled", { requestId: firstId, reason: "server going away" });
    await relistened;
    expect(drops).toHaveLength(1);
    expect(server.messages("subscriptions/listen")).toHaveLength(2);
    expect(subscription.id).not.toEqual(firstId);
    const seen: string[] = [];
    subscription.on("notification", (m) => seen.push(m));
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: subscription.id } });
    await tick();
    expect(seen).toEqual(["notifications/tools/list_changed"]);
  });

  it("checklist 22: over HTTP, close aborts the stream (no notifications/cancelled POST); a dropped stream is listened to again", async () => {
    let listens = 0;
    const http = await startScriptedHttp((request) => {
      const method = request.body?.method;
      if (method === "server/discover") return result(request, MODERN_DISCOVER);
      if (method === "subscriptions/listen") {
        listens++;
        const ack = {
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { notifications: { toolsListChanged: true }, _meta: { [SID]: request.body!.id } },
        };
        if (listens === 1) return { sse: [ack], end: "cut" };
        return { sse: [ack, { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SID]: request.body!.id } } }], end: "hang" };
      }
      return { status: 202 };
    });
    track(http);
    const client = await connect({ url: http.url });
    track(client);
    const changed = new Promise((resolve) => client.on("toolsChanged", () => resolve(true)));
    const subscription = await client.listen({ toolsListChanged: true }, { backoff: { initialMs: 10, maxMs: 50 } });
    expect(await changed).toBe(true); // arrived on the second stream, after the first was cut
    expect(listens).toBe(2);
    await subscription.close();
    expect(await subscription.closed).toBe("local");
    // The abort reaches the server over a real socket: wait for it (bounded), whatever the machine's load.
    await waitFor(() => http.abandoned.includes(subscription.id));
    expect(http.abandoned).toContain(subscription.id); // the stream was aborted
    expect(http.posts("notifications/cancelled")).toHaveLength(0);
  });

  it("checklist 23: the 2025 era has no listen (typed error); change notifications arrive unsolicited; resources/subscribe is used", async () => {
    const server = new ScriptedServer();
    server.capabilities = { tools: { listChanged: true }, resources: { subscribe: true } };
    server.on("resources/subscribe", () => ({}));
    const client = await open(server, { protocol: "legacy" });
    await expect(client.listen({ toolsListChanged: true })).rejects.toBeInstanceOf(MethodNotSupportedError);
    const events: string[] = [];
    client.on("toolsChanged", () => events.push("tools"));
    client.on("resourceUpdated", (p) => events.push(`updated ${p.uri}`));
    await client.subscribeResource("file:///a");
    expect(server.messages("resources/subscribe")).toHaveLength(1);
    server.notify("notifications/tools/list_changed");
    server.notify("notifications/resources/updated", { uri: "file:///a" });
    await tick();
    expect(events).toEqual(["tools", "updated file:///a"]);
  });

  it("checklist 30: listen notifications become the same connection events as 2025 notifications (the cache drops entries on them)", async () => {
    const server = listeningServer();
    const client = await open(server);
    const events: string[] = [];
    client.on("toolsChanged", () => events.push("tools"));
    client.on("resourcesChanged", () => events.push("resources"));
    client.on("promptsChanged", () => events.push("prompts"));
    client.on("resourceUpdated", (p) => events.push(`updated ${p.uri}`));
    const subscription: Subscription = await client.listen({ toolsListChanged: true, resourcesListChanged: true });
    events.length = 0;
    for (const method of ["notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed"]) {
      server.notify(method, { _meta: { [SID]: subscription.id } });
    }
    server.notify("notifications/resources/updated", { uri: "file:///x", _meta: { [SID]: subscription.id } });
    await tick();
    expect(events).toEqual(["tools", "resources", "prompts", "updated file:///x"]);
  });

  it("a closed client with open listens leaves no pending request, armed timer or subscription behind", async () => {
    const server = listeningServer();
    const client = await open(server);
    const subscription = await client.listen({ toolsListChanged: true });
    await client.subscribeResource("file:///a");
    const unacked = modernServer();
    unacked.on("subscriptions/listen", () => "silent");
    const other = await open(unacked);
    const pending = other.listen({ toolsListChanged: true }).catch((e) => e);
    await client.close();
    await other.close();
    expect(await subscription.closed).toBe("local");
    expect(await pending).toBeInstanceOf(Error);
    for (const c of [client, other]) expect(c.connection.stats()).toEqual({ pending: 0, timerArmed: false, waiting: 0, inbound: 0 });
  });

  it("subscribeResource works in the 2026 era through a listen with resourceSubscriptions", async () => {
    const server = listeningServer();
    const client = await open(server, { autoListen: false }); // only the resource listens on the wire
    const updates: string[] = [];
    client.on("resourceUpdated", (p) => updates.push(p.uri));
    await client.subscribeResource("file:///a");
    await client.subscribeResource("file:///b");
    const listens = server.messages("subscriptions/listen") as JsonRpcRequest[];
    expect(listens.map((l) => (l.params as { notifications: unknown }).notifications)).toEqual([
      { resourceSubscriptions: ["file:///a"] },
      { resourceSubscriptions: ["file:///a", "file:///b"] },
    ]);
    // Routed to the current stream only: the first one (closed by the rewatch) is stale. The
    // connection's resourceUpdated event fires for any notification, so routing is checked on the
    // subscription itself.
    const [watch] = heldSubscriptions(client);
    const routed = routedIds(watch);
    server.notify("notifications/resources/updated", { uri: "file:///a", _meta: { [SID]: listens[0].id } });
    server.notify("notifications/resources/updated", { uri: "file:///b", _meta: { [SID]: listens[1].id } });
    await tick();
    expect(routed).toEqual([listens[1].id]);
    expect(updates).toEqual(["file:///a", "file:///b"]);
    expect(server.messages("resources/subscribe")).toHaveLength(0);
    await client.unsubscribeResource("file:///a");
    await client.unsubscribeResource("file:///b");
    await tick();
    const cancelled = (server.messages("notifications/cancelled") as unknown as { params: { requestId: unknown } }[]).map((m) => m.params.requestId);
    expect(cancelled).toEqual(expect.arrayContaining([listens[0].id, listens[1].id]));
  });

  it("concurrent subscribeResource calls keep one stream: each update arrives once, and none is left open after unsubscribing all", async () => {
    const server = listeningServer();
    const client = await open(server, { autoListen: false });
    const updates: string[] = [];
    client.on("resourceUpdated", (p) => updates.push(p.uri));
    const uris = ["file:///a", "file:///b", "file:///c"];
    await Promise.all(uris.map((uri) => client.subscribeResource(uri)));
    await tick();
    const open_ = () => {
      const cancelled = new Set((server.messages("notifications/cancelled") as unknown as { params: { requestId: unknown } }[]).map((m) => m.params.requestId));
      return (server.messages("subscriptions/listen") as JsonRpcRequest[]).filter((l) => !cancelled.has(l.id));
    };
    expect(open_()).toHaveLength(1);
    // The server publishes each update on every open listen that asked for its uri.
    for (const uri of uris) {
      for (const listen of open_()) {
        if ((listen.params as { notifications: { resourceSubscriptions: string[] } }).notifications.resourceSubscriptions.includes(uri)) {
          server.notify("notifications/resources/updated", { uri, _meta: { [SID]: listen.id } });
        }
      }
    }
    await tick();
    expect(updates.sort()).toEqual(uris);
    await Promise.all(uris.map((uri) => client.unsubscribeResource(uri)));
    await tick();
    expect(open_()).toHaveLength(0);
  });

  it("a refused resource rewatch leaves the old stream open with its uris (nothing half-removed)", async () => {
    const server = listeningServer();
    const client = await open(server, { autoListen: false });
    await client.subscribeResource("file:///a");
    server.on("subscriptions/listen", (request) => replyError(server, request.id, -32603, "no more listens"));
    await expect(client.subscribeResource("file:///b")).rejects.toThrow(/no more listens/);
    await tick();
    expect(server.messages("notifications/cancelled")).toHaveLength(0); // the first stream stays
    // The set is still {a}: subscribing b again opens a listen for a and b, once the server allows it.
    server.on("subscriptions/listen", (request, s) => {
      s.notify("notifications/subscriptions/acknowledged", {
        notifications: (request.params as { notifications: unknown }).notifications,
        _meta: { [SID]: request.id },
      });
      return "silent";
    });
    await client.subscribeResource("file:///b");
    const last = (server.messages("subscriptions/listen") as JsonRpcRequest[]).at(-1)!;
    expect((last.params as { notifications: unknown }).notifications).toEqual({ resourceSubscriptions: ["file:///a", "file:///b"] });
  });
});
