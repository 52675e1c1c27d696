/**
 * An upstream server's sampling, elicitation and roots requests pass through the gateway to the
 * downstream client whose call caused them, and its answers go back: end to end with real peers (the
 * official SDK's McpServer upstream over Streamable HTTP or stdio, the SDK's Client downstream).
 */
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PASS_THROUGH_CAPABILITIES } from "../../src/gateway/index.js";
import { createAskingServer } from "../fixtures/asking-server.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";
import { echo, gatewaysAfterEach } from "./helpers.js";

const { serve, track } = gatewaysAfterEach();

const client = { capabilities: PASS_THROUGH_CAPABILITIES };

async function servedAskingServer(eventStore = false) {
  const asking = track(await startStreamableHttpServer({ stateful: true, eventStore, createServer: createAskingServer }));
  return serve({ servers: { up: { url: asking.url } }, client });
}

/** The SDK client, with the handlers a host gives it: a model, a user, and roots. `asked` records what reached it. */
async function downstream(url: string, capabilities: Record<string, object>) {
  const asked: string[] = [];
  const sdk = new Client({ name: "host-app", version: "2.1.0" }, { capabilities });
  if ("sampling" in capabilities)
    sdk.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const first = request.params.messages[0].content as { text?: string };
      asked.push(`sampling:${first.text ?? ""}`);
      return { role: "assistant", model: "host-model", content: { type: "text", text: "forty-two" } };
    });
  if ("elicitation" in capabilities)
    sdk.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(`elicitation:${request.params.message}`);
      return { action: "accept", content: { name: "Ada" } };
    });
  if ("roots" in capabilities)
    sdk.setRequestHandler(ListRootsRequestSchema, () => {
      asked.push("roots");
      return { roots: [{ uri: "file:///home/ada/project" }] };
    });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { sdk: track(sdk), asked };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("server requests through the gateway", () => {
  it("sampling, elicitation and roots reach the calling client and its answers go back upstream", async () => {
    const gateway = await servedAskingServer();
    const { sdk, asked } = await downstream(gateway.url, { sampling: {}, elicitation: { form: {} }, roots: {} });
    expect(textOf(await sdk.callTool({ name: "up__ask_model", arguments: { question: "the answer?" } }))).toBe("forty-two");
    expect(textOf(await sdk.callTool({ name: "up__ask_user", arguments: { question: "your name?" } }))).toBe("accept:Ada");
    expect(textOf(await sdk.callTool({ name: "up__list_roots", arguments: {} }))).toBe("file:///home/ada/project");
    expect(asked).toEqual(["sampling:the answer?", "elicitation:your name?", "roots"]);
  });

  it("from a server that keeps an event store (its events have ids, as the conformance reference server's do)", async () => {
    const gateway = await servedAskingServer(true);
    const { sdk, asked } = await downstream(gateway.url, { sampling: {}, elicitation: { form: {} } });
    expect(textOf(await sdk.callTool({ name: "up__ask_model", arguments: { question: "resumable?" } }))).toBe("forty-two");
    expect(textOf(await sdk.callTool({ name: "up__ask_user", arguments: { question: "name?" } }))).toBe("accept:Ada");
    expect(asked).toEqual(["sampling:resumable?", "elicitation:name?"]);
  });

  it("a resources/read or prompts/get that asks reaches the client whose read or get it is", async () => {
    const gateway = await servedAskingServer();
    const { sdk, asked } = await downstream(gateway.url, { sampling: {}, elicitation: { form: {} } });
    await sdk.listResources();
    const read = await sdk.readResource({ uri: "asking://model-answer" });
    expect(read.contents).toEqual([{ uri: "asking://model-answer", text: "forty-two" }]);
    const prompt = await sdk.getPrompt({ name: "up__greeting" });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Hello, Ada" } }]);
    expect(asked).toEqual(["sampling:for a resource", "elicitation:who is it for?"]);
  });

  it("a completion whose server asks for roots asks the client that completes (2025 era)", async () => {
    const gateway = await servedAskingServer();
    const { sdk, asked } = await downstream(gateway.url, { roots: {} });
    const done = await sdk.complete({ ref: { type: "ref/prompt", name: "up__greeting" }, argument: { name: "who", value: "ada" } });
    expect(done.completion.values).toEqual(["file:///home/ada/project"]);
    expect(asked).toEqual(["roots"]);
  });

  it("each request reaches the client whose call caused it, with two clients calling at once", async () => {
    const gateway = await servedAskingServer();
    const ada = await downstream(gateway.url, { sampling: {} });
    const bob = await downstream(gateway.url, { sampling: {} });
    const results = await Promise.all([
      ada.sdk.callTool({ name: "up__ask_model", arguments: { question: "from ada" } }),
      bob.sdk.callTool({ name: "up__ask_model", arguments: { question: "from bob" } }),
      ada.sdk.callTool({ name: "up__ask_model", arguments: { question: "from ada again" } }),
    ]);
    expect(results.map(textOf)).toEqual(["forty-two", "forty-two", "forty-two"]);
    expect(ada.asked.sort()).toEqual(["sampling:from ada", "sampling:from ada again"]);
    expect(bob.asked).toEqual(["sampling:from bob"]);
  });

  it("a client without the capability is never asked: the server gets -32601 naming the client", async () => {
    const gateway = await servedAskingServer();
    const { sdk, asked } = await downstream(gateway.url, { roots: {} });
    const result = (await sdk.callTool({ name: "up__ask_model", arguments: { question: "?" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/-32601.*"host-app" did not declare the sampling capability/s);
    expect(asked).toEqual([]);
  });

  it("a 2026-era server's input requests (inside its results) reach the calling client too", async () => {
    const modern = track(await startSdkV2Http("reject"));
    const gateway = await serve({ servers: { modern: { url: modern.url } }, client });
    const { sdk, asked } = await downstream(gateway.url, { sampling: {}, roots: {} });
    expect(textOf(await sdk.callTool({ name: "modern__summarize", arguments: { topic: "gateways" } }))).toBe("forty-two | file:///home/ada/project");
    expect(asked.sort()).toEqual(["roots", "sampling:Summarize gateways"]);
  });

  it("a stdio server's request, unrelated on the wire, reaches the one client whose call is in flight", async () => {
    const gateway = await serve({ servers: { echo }, client });
    const { sdk, asked } = await downstream(gateway.url, { sampling: {} });
    expect(textOf(await sdk.callTool({ name: "echo__ask_model", arguments: { question: "over stdio" } }))).toBe("forty-two");
    expect(asked).toEqual(["sampling:over stdio"]);
  });
});

describe("a server request the wire does not relate to its call", () => {
  it("with two calls in flight, is refused rather than guessed: neither client is asked", async () => {
    const gateway = await servedAskingServer();
    const ada = await downstream(gateway.url, { sampling: {} });
    const bob = await downstream(gateway.url, { sampling: {} });
    const results = await Promise.all([
      ada.sdk.callTool({ name: "up__ask_model_unrelated", arguments: { question: "a" } }),
      bob.sdk.callTool({ name: "up__ask_model_unrelated", arguments: { question: "b" } }),
    ]);
    // The SDK server sends each on its session's GET stream, the same for both: only one in flight is certain.
    for (const result of results) if ((result as CallToolResult).isError) expect(textOf(result)).toMatch(/-32601/);
    // Never the other client's question: a guess could send one user's prompt to another.
    for (const asked of ada.asked) expect(asked).toBe("sampling:a");
    for (const asked of bob.asked) expect(asked).toBe("sampling:b");
  });
});
