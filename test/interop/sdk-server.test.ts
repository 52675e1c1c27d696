/**
 * Interop with the official SDK's McpServer, over stdio (a real process) and over the memory pair:
 * tools listed and called, progress received, timeouts and aborts send notifications/cancelled, a crash
 * mid-request rejects everything pending within 1 s with the exit code and the stderr tail.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { connect, ConnectionClosedError, McpClient, RequestCancelledError, RequestTimeoutError, memoryPair } from "../../src/index.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
// @ts-expect-error: plain JS example server
import { createEchoServer } from "../../examples/servers/echo-tools.mjs";
import { toSdkTransport } from "../helpers/sdk-bridge.js";

const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
const garbageServer = fileURLToPath(new URL("../../examples/servers/garbage-server.mjs", import.meta.url));

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  expect(liveProcessCount()).toBe(0);
});

async function overStdio(env?: Record<string, string>): Promise<McpClient> {
  const client = await connect({ command: process.execPath, args: [echoServer], env }, { protocol: "legacy" });
  clients.push(client);
  return client;
}

async function overMemory(): Promise<{ client: McpClient; cancelled: unknown[] }> {
  const [clientSide, serverSide] = memoryPair();
  const server = createEchoServer();
  const cancelled: unknown[] = [];
  const sdkTransport = toSdkTransport(serverSide);
  await server.connect(sdkTransport);
  const onmessage = sdkTransport.onmessage!;
  sdkTransport.onmessage = (message) => {
    if ("method" in message && message.method === "notifications/cancelled") cancelled.push(message.params);
    onmessage(message);
  };
  const client = await connect(clientSide, { protocol: "legacy" });
  clients.push(client);
  return { client, cancelled };
}

describe.each([
  ["stdio", () => overStdio()],
  ["memory pair", async () => (await overMemory()).client],
])("SDK McpServer over %s", (_name, open) => {
  it("lists and calls tools, and reports progress", async () => {
    const client = await open();
    expect(client.serverInfo?.name).toBe("echo-server");
    expect(client.instructions).toMatch(/Echoes/);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    expect((await client.callTool("echo", { text: "héllo 👋" })).content[0]).toEqual({ type: "text", text: "héllo 👋" });
    const fail = await client.callTool("fail");
    expect(fail.isError).toBe(true);
    await expect(client.callTool("fail", {}, { throwOnError: true })).rejects.toThrow(/always fails/);
    const progress: number[] = [];
    const done = await client.callTool("progress", { steps: 4, delayMs: 10 }, { onProgress: (p) => progress.push(p.progress) });
    expect(done.content[0]).toMatchObject({ text: "done" });
    expect(progress).toEqual([1, 2, 3, 4]);
    const err = await client.callTool("no_such_tool").catch((e) => e);
    // The SDK answers unknown tools with an isError result or a -32602 error depending on version.
    expect(err instanceof Error ? (err as { code?: number }).code : (err as { isError?: boolean }).isError).toBeTruthy();
  });
});

describe("cancellation reaches the SDK server", () => {
  it("a timeout and an abort each send notifications/cancelled", async () => {
    const { client, cancelled } = await overMemory();
    const timedOut = await client.callTool("slow", { ms: 2000 }, { timeoutMs: 50 }).catch((e) => e);
    expect(timedOut).toBeInstanceOf(RequestTimeoutError);
    const controller = new AbortController();
    const pending = client.callTool("slow", { ms: 2000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toBeInstanceOf(RequestCancelledError);
    await new Promise((r) => setTimeout(r, 20));
    expect(cancelled).toHaveLength(2);
    expect(cancelled[0]).toMatchObject({ reason: expect.stringMatching(/timed out/) });
    // The server is still fine afterwards.
    expect((await client.callTool("echo", { text: "ok" })).content[0]).toMatchObject({ text: "ok" });
  });
});

describe("a stdio server that crashes", () => {
  it("rejects every pending request within 1 s with the exit code and the stderr tail", async () => {
    const client = await overStdio({ ECHO_SERVER_STDERR: "booted with a warning" });
    const pending = Array.from({ length: 20 }, () => client.callTool("slow", { ms: 10_000 }).catch((e) => e));
    await new Promise((r) => setTimeout(r, 100));
    const crashedAt = Date.now();
    const crash = client.callTool("crash").catch((e) => e);
    const errors = await Promise.all([...pending, crash]);
    expect(Date.now() - crashedAt).toBeLessThan(1000);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error.exitCode).toBe(3);
      expect(error.stderr).toMatch(/booted with a warning[\s\S]*about to crash/);
      expect(error.message).toMatch(/exited with code 3[\s\S]*about to crash/);
      expect(error.retryable).toBe(true);
    }
    expect(client.state).toBe("failed");
  });

  it("fails connect() clearly when the command does not exist", async () => {
    await expect(connect({ command: "definitely-not-a-command-xyz" })).rejects.toThrow(
      /Cannot start MCP server "definitely-not-a-command-xyz": command not found \(ENOENT\)/,
    );
  });

  it("survives a server that writes garbage between good frames", async () => {
    const client = await connect({ command: process.execPath, args: [garbageServer] }, { protocol: "legacy" });
    clients.push(client);
    const errors: string[] = [];
    client.on("error", (e) => errors.push(e.message));
    for (let i = 0; i < 3; i++) expect((await client.callTool("any")).content[0]).toMatchObject({ text: "ok despite garbage" });
    expect(errors.filter((e) => /Invalid JSON line/.test(e))).toHaveLength(3);
    expect(errors.filter((e) => /not a JSON-RPC 2.0 message/.test(e))).toHaveLength(3);
    expect(errors.filter((e) => /unknown request id 987654/.test(e))).toHaveLength(3);
  });
});
