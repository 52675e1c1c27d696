import { describe, expect, it, vi } from "vitest";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { FALLBACK_META_KEY } from "../../src/gateway/index.js";
import { echo, filesServer, gatewaysAfterEach, postListen } from "./helpers.js";

const { serve, sdkClient } = gatewaysAfterEach();

describe("what passes through the gateway", () => {
  it("a board list change reaches the client as notifications/tools/list_changed on its GET stream", async () => {
    const gateway = await serve();
    const client = await sdkClient(gateway.url);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    // Repeated until seen: the SDK client opens its GET stream in the background after initialize.
    await vi.waitFor(
      () => {
        gateway.board.emit("listsChanged", { server: "echo" });
        expect(changed).toBeGreaterThan(0);
      },
      { timeout: 3_000, interval: 50 },
    );
  });

  it("upstream log messages reach clients at the level they set, tagged with their server", async () => {
    const gateway = await serve();
    const client = await sdkClient(gateway.url);
    const seen: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push(n.params);
    });
    await client.setLoggingLevel("warning");
    await vi.waitFor(
      () => {
        gateway.board.emit("log", { server: "echo", params: { level: "debug", data: "too quiet" } });
        gateway.board.emit("log", { server: "echo", params: { level: "error", data: "loud" } });
        expect(seen.length).toBeGreaterThan(0);
      },
      { timeout: 3_000, interval: 50 },
    );
    expect(seen[0]).toEqual({ level: "error", data: "loud", logger: "echo" });
    expect(seen.some((p) => (p as { data: string }).data === "too quiet")).toBe(false);
  });

  it("a call that failed over to a fallback says so in its result's _meta", async () => {
    const gateway = await serve({
      servers: { a: { command: process.execPath, args: ["-e", "process.exit(1)"], fallbacks: ["b"] }, b: echo },
      startTimeoutMs: 5_000,
    });
    const client = await sdkClient(gateway.url);
    const result = await client.callTool({ name: "a__idempotent_read", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(/^pid \d+$/) }]);
    expect(result._meta?.[FALLBACK_META_KEY]).toMatchObject({ from: "a", to: "b" });
  });
});

describe("resource subscriptions (2025 era)", () => {
  it("a client's subscription is made upstream once, its updates reach the client, and the last unsubscribe ends it", async () => {
    const { calls: upstreamCalls, upstream, updated } = await filesServer();
    try {
      const gateway = await serve({ servers: { files: { url: upstream.url } } });
      const [first, second] = [await sdkClient(gateway.url), await sdkClient(gateway.url)];
      const updates: string[] = [];
      first.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      await first.subscribeResource({ uri: "test://notes" });
      await second.subscribeResource({ uri: "test://notes" });
      expect(upstreamCalls).toEqual(["subscribe test://notes"]);
      // Repeated until seen: the SDK client opens its GET stream in the background after initialize.
      await vi.waitFor(
        async () => {
          await updated("test://notes");
          expect(updates).toContain("test://notes");
        },
        { timeout: 3_000, interval: 50 },
      );
      await first.unsubscribeResource({ uri: "test://notes" });
      expect(upstreamCalls).toEqual(["subscribe test://notes"]);
      await second.unsubscribeResource({ uri: "test://notes" });
      expect(upstreamCalls).toEqual(["subscribe test://notes", "unsubscribe test://notes"]);
    } finally {
      await upstream.close();
    }
  });

  it("a session that ends (DELETE) ends its subscriptions upstream", async () => {
    const { calls, upstream } = await filesServer();
    try {
      const gateway = await serve({ servers: { files: { url: upstream.url } } });
      const client = await sdkClient(gateway.url);
      await client.subscribeResource({ uri: "test://notes" });
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await vi.waitFor(() => expect(calls).toEqual(["subscribe test://notes", "unsubscribe test://notes"]), { timeout: 3_000 });
    } finally {
      await upstream.close();
    }
  });
});

describe("resource subscriptions on a 2026 listen", () => {
  it("the acknowledgement names the URIs subscribed to, updates carry the listen's id, and closing it unsubscribes", async () => {
    const { calls, upstream, updated } = await filesServer();
    try {
      const gateway = await serve({ servers: { files: { url: upstream.url } } });
      const controller = new AbortController();
      const response = await postListen(gateway.url, 7, { resourceSubscriptions: ["test://notes", "test://nowhere"] }, controller.signal);
      const reader = response.body!.getReader();
      const events: Array<{ method: string; params: Record<string, unknown> }> = [];
      let buffered = "";
      const next = async () => {
        while (!buffered.includes("\n\n")) buffered += new TextDecoder().decode((await reader.read()).value);
        const [event, ...rest] = buffered.split("\n\n");
        buffered = rest.join("\n\n");
        const data = event.split("\n").find((line) => line.startsWith("data: "));
        if (data === undefined) return next();
        events.push(JSON.parse(data.slice(6)));
        return events.at(-1)!;
      };
      // The unknown URI is left out of what the listen will get; the other is subscribed upstream once.
      expect(await next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { resourceSubscriptions: ["test://notes"] }, _meta: { "io.modelcontextprotocol/subscriptionId": 7 } },
      });
      expect(calls).toEqual(["subscribe test://notes"]);
      await updated("test://notes");
      expect(await next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "test://notes", _meta: { "io.modelcontextprotocol/subscriptionId": 7 } },
      });
      controller.abort();
      await vi.waitFor(() => expect(calls).toEqual(["subscribe test://notes", "unsubscribe test://notes"]), { timeout: 3_000 });
    } finally {
      await upstream.close();
    }
  });
});
