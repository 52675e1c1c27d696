/**
 * Gateway sessions are visible: on the observer (client, principal, calls, started and last active,
 * a session id too short to use) and on the OpenTelemetry spans of their calls upstream.
 */
import { describe, expect, it } from "vitest";
import { observe } from "../../src/index.js";
import { ATTR_GATEWAY_CLIENT_NAME, ATTR_GATEWAY_CLIENT_VERSION, ATTR_GATEWAY_PRINCIPAL, ATTR_GATEWAY_SESSION_ID } from "../../src/telemetry/gateway-session.js";
import { serveStdio } from "../../src/gateway/stdio.js";
import { PassThrough } from "node:stream";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { otelHarness } from "../telemetry/otel-harness.js";
import { echo, gatewaysAfterEach } from "./helpers.js";

const { serve, sdkClient, board } = gatewaysAfterEach();
const closeLater = closeAfterEach();
const harness = otelHarness();
const auth = { apiKeys: { "ada-key": "ada", "bob-key": "bob" } };

describe("gateway sessions on the observer", () => {
  it("shows each session's client, principal, calls and times, newest activity first; none once the gateway closes", async () => {
    const before = Date.now();
    const gateway = await serve({ servers: { echo: { ...echo, shared: true } } }, { auth });
    const observer = closeLater(await observe(gateway.board, { port: 0 }));
    const ada = await sdkClient(gateway.url, { authorization: "Bearer ada-key" });
    await sdkClient(gateway.url, { authorization: "Bearer bob-key" });
    await ada.callTool({ name: "echo__echo", arguments: { text: "one" } });
    await ada.callTool({ name: "echo__echo", arguments: { text: "two" } });
    const view = observer.snapshot().gateway!;
    expect(view.total).toBe(2);
    expect(view.sessions.map((s) => [s.principal, s.client, s.calls])).toEqual([
      ["ada", "sdk-test 1.0.0", 2],
      ["bob", "sdk-test 1.0.0", 0],
    ]);
    for (const s of view.sessions) {
      expect(s.id).toHaveLength(8);
      expect(s.startedAt).toBeGreaterThanOrEqual(before);
      expect(s.lastActiveAt).toBeGreaterThanOrEqual(s.startedAt);
    }
    const page = await (await fetch(observer.url)).text();
    expect(page).toContain('id="gateway-section"');
    expect(page).toContain(`"principal":"ada"`);
    await gateway.close();
    expect(observer.snapshot().gateway).toBeUndefined();
  });

  it("shows the stdio gateway's one client", async () => {
    const b = board({ servers: { echo } });
    await b.start();
    const input = new PassThrough();
    const output = new PassThrough();
    const gateway = serveStdio(b, {}, input, output);
    const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "desktop", version: "9" } };
    input.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init }) + "\n");
    input.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo__echo", arguments: { text: "x" } } }) + "\n");
    const observer = closeLater(await observe(b, { port: 0 }));
    await expect.poll(() => observer.snapshot().gateway?.sessions[0]?.calls).toBe(1);
    expect(observer.snapshot().gateway!.sessions[0]).toMatchObject({ id: "stdio", client: "desktop 9", principal: undefined });
    gateway.close();
    expect(observer.snapshot().gateway).toBeUndefined();
  });
});

describe("gateway sessions on OpenTelemetry", () => {
  it("the spans of a session's calls upstream name its client, principal and session", async () => {
    const otel = await harness();
    const gateway = await serve({ servers: { echo: { ...echo, shared: true } }, client: { telemetry: otel.telemetry } }, { auth });
    const ada = await sdkClient(gateway.url, { authorization: "Bearer ada-key" });
    await ada.callTool({ name: "echo__echo", arguments: { text: "traced" } });
    const call = otel.spans().find((span) => span.name === "tools/call echo")!;
    expect(call).toBeDefined();
    expect(call.attributes).toMatchObject({
      [ATTR_GATEWAY_CLIENT_NAME]: "sdk-test",
      [ATTR_GATEWAY_CLIENT_VERSION]: "1.0.0",
      [ATTR_GATEWAY_PRINCIPAL]: "ada",
    });
    expect(call.attributes[ATTR_GATEWAY_SESSION_ID]).toMatch(/^[0-9a-f-]{36}$/);
    // A call made on the board directly names no gateway session.
    await gateway.board.callTool("echo__echo", { text: "direct" });
    const direct = otel.spans().filter((span) => span.name === "tools/call echo")[1];
    expect(direct.attributes[ATTR_GATEWAY_CLIENT_NAME]).toBeUndefined();
  });
});
