/**
 * The whole client surface against the reference server, @modelcontextprotocol/server-everything, over
 * stdio: every client method, the server's requests (sampling, elicitation, roots), logging, progress,
 * and resource subscriptions with `resources/updated` arriving as events. One server process for the
 * file (it is the slow part); it is gone when the file ends.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type LogParams, type McpClient } from "../../src/index.js";
import { isAlive, waitFor } from "../helpers/processes.js";

const everything = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

const sampled: unknown[] = [];
const elicited: unknown[] = [];
const logs: LogParams[] = [];
const updates: string[] = [];
let client: McpClient;
let pid: number | undefined;

beforeAll(async () => {
  client = await connect(
    { command: process.execPath, args: [everything, "stdio"] },
    {
      protocol: "legacy",
      roots: [{ uri: "file:///workspace/project", name: "project" }],
      onSampling: (params) => {
        sampled.push(params);
        return { role: "assistant", model: "stub-model", content: { type: "text", text: "sampled answer" } };
      },
      // The user fills in only their name: the schema's defaults (firstLine, integer, ...) are the client's to add.
      onElicitation: (params) => {
        elicited.push(params);
        return { action: "accept", content: { name: "Ada Lovelace" } };
      },
    },
  );
  pid = (client.connection.transport as unknown as { pid?: number }).pid;
  client.on("log", (params) => logs.push(params));
  client.on("resourceUpdated", ({ uri }) => updates.push(uri));
});

afterAll(async () => {
  await client?.close();
  if (pid !== undefined) await waitFor(() => !isAlive(pid), 5000);
});

describe("server-everything over stdio", () => {
  it("initializes and reports the server's facts", () => {
    expect(client.serverInfo?.name).toMatch(/everything/);
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.era).toBe("legacy");
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, logging: {} });
  });

  it("lists tools (cached: the second list costs no round trip) and calls them", async () => {
    const tools = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation", "get-structured-content"]));
    expect(names).toEqual(expect.arrayContaining(["trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"]));
    expect(await client.listTools()).toEqual(tools);
    expect(client.cache.size).toBeGreaterThan(0);
    expect((await client.callTool("get-sum", { a: 2, b: 40 })).content[0]).toMatchObject({ type: "text", text: expect.stringContaining("42") });
  });

  it("validates structuredContent against the tool's outputSchema when asked", async () => {
    const result = await client.callTool("get-structured-content", { location: "New York" }, { validateStructuredContent: true });
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it("lists resources and templates, reads one, and completes a template argument", async () => {
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await client.readResource(resources[0].uri);
    expect(read.contents[0]?.uri).toBe(resources[0].uri);
    const templates = await client.listResourceTemplates();
    const text = templates.find((t) => t.uriTemplate.includes("/text/"));
    expect(text?.uriTemplate).toBe("demo://resource/dynamic/text/{resourceId}");
    const dynamic = await client.readResource("demo://resource/dynamic/text/7");
    expect(dynamic.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/7" });
    const completed = await client.complete({ type: "ref/resource", uri: text!.uriTemplate }, { name: "resourceId", value: "1" });
    expect(completed.completion.values.length).toBeGreaterThan(0);
  });

  it("lists prompts, gets one with arguments, and completes a prompt argument using context", async () => {
    const prompts = (await client.listPrompts()).map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt", "completable-prompt"]));
    const prompt = await client.getPrompt("completable-prompt", { department: "Engineering", name: "Alice" });
    expect(JSON.stringify(prompt.messages)).toContain("promote Alice to the head of the Engineering team");
    const names = await client.complete(
      { type: "ref/prompt", name: "completable-prompt" },
      { name: "name", value: "" },
      { arguments: { department: "Sales" } },
    );
    expect(names.completion.values).toEqual(["David", "Eve", "Frank"]);
  });

  it("sets the logging level and receives log messages as events; pings", async () => {
    await client.setLoggingLevel("debug");
    await client.ping();
    const before = logs.length;
    await client.callTool("toggle-simulated-logging", {}); // sends one message at once, then every 5 s
    await client.callTool("toggle-simulated-logging", {}); // off again
    await waitFor(() => logs.length > before, 5000);
    expect(logs[before]).toMatchObject({ level: expect.any(String), data: expect.stringContaining("message") });
  });

  it("reports progress of the long-running tool", async () => {
    const progress: Array<[number, number | undefined]> = [];
    const result = await client.callTool(
      "trigger-long-running-operation",
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push([p.progress, p.total]) },
    );
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("completed") });
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it("answers the server's sampling request through onSampling", async () => {
    const result = await client.callTool("trigger-sampling-request", { prompt: "What is 2+2?", maxTokens: 20 });
    expect(JSON.stringify(result.content)).toContain("sampled answer");
    expect(sampled.at(-1)).toMatchObject({ messages: [{ role: "user", content: { type: "text", text: expect.stringContaining("What is 2+2?") } }] });
  });

  it("answers the server's elicitation through onElicitation, with the schema's defaults filled in", async () => {
    const result = await client.callTool("trigger-elicitation-request", {});
    const text = JSON.stringify(result.content);
    expect(text).toContain("Name: Ada Lovelace");
    expect(text).toContain("Favorite Integer: 42"); // the schema default the user did not give
    expect(elicited).toHaveLength(1);
  });

  it("answers roots/list from the static roots list, and tells the server when it changes", async () => {
    const first = await client.callTool("get-roots-list", {});
    expect(JSON.stringify(first.content)).toContain("file:///workspace/project");
    await client.setRoots([{ uri: "file:///workspace/other", name: "other" }]);
    // The server re-fetches roots when told they changed; poll its view until it has.
    let text = "";
    for (let attempt = 0; attempt < 50 && !text.includes("file:///workspace/other"); attempt++) {
      text = JSON.stringify((await client.callTool("get-roots-list", {})).content);
      if (!text.includes("file:///workspace/other")) await new Promise((r) => setTimeout(r, 20));
    }
    expect(text).toContain("file:///workspace/other");
  });

  it("subscribes to a resource and receives resources/updated as events; unsubscribes", async () => {
    const uri = (await client.listResources())[0].uri;
    await client.subscribeResource(uri);
    await client.callTool("toggle-subscriber-updates", {}); // sends one round of updates at once, then every 5 s
    await waitFor(() => updates.includes(uri), 5000);
    await client.callTool("toggle-subscriber-updates", {});
    await client.unsubscribeResource(uri);
  });
});
