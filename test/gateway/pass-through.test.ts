import { describe, expect, it, vi } from "vitest";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SubscribeRequestSchema,
  ToolListChangedNotificationSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { FALLBACK_META_KEY } from "../../src/gateway/index.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { echo, gatewaysAfterEach } from "./helpers.js";

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
    const upstreamCalls: string[] = [];
    const servers: McpServer[] = [];
    const upstream = await startStreamableHttpServer({
      stateful: true,
      createServer: () => {
        const server = new McpServer({ name: "files", version: "1.0.0" }, { capabilities: { resources: { subscribe: true, listChanged: true } } });
        server.registerResource("notes", "test://notes", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: "n" }] }));
        server.server.setRequestHandler(SubscribeRequestSchema, async (request) => (upstreamCalls.push(`subscribe ${request.params.uri}`), {}));
        server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => (upstreamCalls.push(`unsubscribe ${request.params.uri}`), {}));
        servers.push(server);
        return server;
      },
    });
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
          await servers.at(-1)!.server.sendResourceUpdated({ uri: "test://notes" });
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
});
