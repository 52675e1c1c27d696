import { describe, expect, it, vi } from "vitest";
import { connect } from "../../src/client/connect.js";
import { ConfigError } from "../../src/jsonrpc/errors.js";
import { serveBoard } from "../../src/gateway/index.js";
import { echo, gatewaysAfterEach } from "./helpers.js";

const { serve, sdkClient, track, board } = gatewaysAfterEach();

const VERSION = "2026-07-28";

describe("the 2026-07-28 stateless era through the gateway", () => {
  it("our own connect() gets 2026-07-28 and no session, lists and calls the board's tools", async () => {
    const gateway = await serve();
    const client = track(await connect({ url: gateway.url }));
    expect(client.protocolVersion).toBe(VERSION);
    expect(client.serverInfo?.name).toBe("mcp-switchboard-gateway");
    expect((await client.listTools()).map((t) => t.name)).toContain("echo__add");
    expect((await client.callTool("echo__add", { a: 2, b: 2 })).content).toEqual([{ type: "text", text: "4" }]);
    await expect(client.callTool("nobody__nope", {})).rejects.toMatchObject({ code: -32602 });
    expect(gateway.sessions).toBe(0);
  });

  it("with auth in front, each stateless request is authenticated on its own", async () => {
    // A principal may use a stdio server only when it is shared: the call below proves the principal arrived.
    const gateway = await serve({ servers: { echo: { ...echo, shared: true } } }, { auth: { apiKeys: { "key-ada": "ada" } } });
    const client = track(await connect({ url: gateway.url, headers: { authorization: "Bearer key-ada" } }));
    expect(client.protocolVersion).toBe(VERSION);
    expect((await client.callTool("echo__echo", { text: "hi" })).content).toEqual([{ type: "text", text: "hi" }]);
    await expect(connect({ url: gateway.url, headers: { authorization: "Bearer wrong" } })).rejects.toThrow(/401|nauthori/);
  });

  it("passes progress through on the request's own stream", async () => {
    const gateway = await serve();
    const client = track(await connect({ url: gateway.url }));
    const seen: number[] = [];
    const result = await client.callTool("echo__progress", { steps: 3, delayMs: 5 }, { onProgress: (p) => seen.push(p.progress) });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("a board list change reaches the client on its listen stream (toolsChanged)", async () => {
    const gateway = await serve();
    const client = track(await connect({ url: gateway.url }));
    let changed = 0;
    client.on("toolsChanged", () => changed++);
    // Repeated until seen: the client opens its listen in the background once connected.
    await vi.waitFor(
      () => {
        gateway.board.emit("listsChanged", { server: "echo" });
        expect(changed).toBeGreaterThan(0);
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it("closing a 2026 request cancels its upstream call", async () => {
    const gateway = await serve();
    const client = track(await connect({ url: gateway.url }));
    const controller = new AbortController();
    const call = client.callTool("echo__slow", { ms: 20_000 }, { signal: controller.signal });
    await vi.waitFor(() => expect(gateway.board.status().echo.inFlight).toBe(1));
    controller.abort("changed my mind");
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(gateway.board.status().echo.inFlight).toBe(0), { timeout: 3_000 });
  });

  it("a 2025 SDK client and a 2026 client are served side by side, each in its own era", async () => {
    const gateway = await serve();
    const modernClient = track(await connect({ url: gateway.url }));
    const sdk = await sdkClient(gateway.url);
    expect(modernClient.protocolVersion).toBe(VERSION);
    expect(sdk.getServerVersion()?.name).toBe("mcp-switchboard-gateway");
    const [a, b] = await Promise.all([modernClient.callTool("echo__echo", { text: "new" }), sdk.callTool({ name: "echo__echo", arguments: { text: "old" } })]);
    expect(a.content).toEqual([{ type: "text", text: "new" }]);
    expect(b.content).toEqual([{ type: "text", text: "old" }]);
    expect(gateway.sessions).toBe(1);
  });
});

describe("qualifyNames: false", () => {
  it("serves one server under its own names, as if the client spoke to it", async () => {
    const gateway = await serve({ servers: { echo } }, { qualifyNames: false });
    const client = track(await connect({ url: gateway.url }));
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toContain("add");
    expect(names).not.toContain("echo__add");
    expect((await client.callTool("add", { a: 3, b: 4 })).content).toEqual([{ type: "text", text: "7" }]);
  });

  it("is a ConfigError naming the field for a board of two servers", async () => {
    const two = board({ servers: { a: echo, b: echo } });
    await expect(serveBoard(two, { qualifyNames: false })).rejects.toThrow(ConfigError);
    await expect(serveBoard(two, { qualifyNames: false })).rejects.toThrow(/gateway\.qualifyNames.*2 servers/);
  });
});
