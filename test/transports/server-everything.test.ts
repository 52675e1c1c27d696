/**
 * The reference server, @modelcontextprotocol/server-everything, over its network modes: Streamable
 * HTTP and legacy SSE. Spawned on a free port, reached on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { connect, type McpClient } from "../../src/index.js";

const everything = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let children: ChildProcess[] = [];
let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  for (const child of children) child.kill("SIGKILL");
  children = [];
});

/** Starts server-everything in a network mode; resolves once it says it listens. */
async function startEverything(mode: "streamableHttp" | "sse"): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start`)), 15_000);
    let log = "";
    child.stderr.on("data", (chunk) => {
      log += chunk;
      if (/listening on port|running on port/i.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited with ${code}: ${log}`)));
  });
  return port;
}

const sampling = {
  onSampling: async () => ({ role: "assistant" as const, model: "stub-model", content: { type: "text" as const, text: "sampled answer" } }),
};

describe.each([
  ["streamableHttp", (port: number) => ({ url: `http://127.0.0.1:${port}/mcp` })],
  ["sse", (port: number) => ({ url: `http://127.0.0.1:${port}/sse`, type: "sse" as const })],
])("server-everything over %s", (mode, target) => {
  it("initializes, lists and calls tools, reports progress, and round-trips a sampling request", async () => {
    const port = await startEverything(mode as "streamableHttp" | "sse");
    const client = await connect(target(port), { protocol: "legacy", ...sampling });
    clients.push(client);
    expect(client.serverInfo?.name).toMatch(/everything/);
    const tools = (await client.listTools()).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["echo", "trigger-long-running-operation"]));
    expect((await client.callTool("echo", { message: "hi" })).content[0]).toMatchObject({ type: "text", text: expect.stringContaining("hi") });
    const progress: number[] = [];
    const done = await client.callTool("trigger-long-running-operation", { duration: 0.3, steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
    expect(done.content[0]).toMatchObject({ text: expect.stringContaining("completed") });
    expect(progress).toEqual([1, 2, 3]);
    // Registered only for clients that declare sampling, which this one does through onSampling.
    expect(tools).toContain("trigger-sampling-request");
    const sampled = await client.callTool("trigger-sampling-request", { prompt: "hello", maxTokens: 10 });
    expect(JSON.stringify(sampled.content)).toContain("sampled answer");
  });
});
