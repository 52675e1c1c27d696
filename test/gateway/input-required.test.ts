/**
 * MRTR through the gateway (2026-07-28): a 2026 client whose call causes an upstream server request
 * gets an input_required result, and its retry with the answers completes the call. End to end with
 * our own client in the 2026 era downstream (its MRTR driver answers the rounds with its handlers),
 * and both kinds of upstream: a 2025 SDK server asking on the call's stream, a 2026 server asking
 * inside its results. The state is the gateway's: forged, reused or another principal's is refused.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../src/client/connect.js";
import type { ClientOptions } from "../../src/client/options.js";
import { PASS_THROUGH_CAPABILITIES } from "../../src/gateway/index.js";
import { createAskingServer } from "../fixtures/asking-server.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";
import { gatewaysAfterEach, post } from "./helpers.js";

const { serve, track } = gatewaysAfterEach();

const client = { capabilities: PASS_THROUGH_CAPABILITIES };
const VERSION = "2026-07-28";

async function servedAskingServer(options: { auth?: { apiKeys: Record<string, string> } } = {}) {
  const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
  return serve({ servers: { up: { url: asking.url, shared: true } }, client }, options);
}

/** Our client in the 2026 era, with a host's handlers; `asked` records what reached them. */
async function modernClient(url: string, options: ClientOptions = {}) {
  const asked: string[] = [];
  const connected = await connect(
    { url },
    {
      protocol: VERSION,
      onSampling: (params) => {
        const first = params.messages[0].content as { text?: string };
        asked.push(`sampling:${first.text ?? ""}`);
        return { role: "assistant", model: "host-model", content: { type: "text", text: "forty-two" } };
      },
      onElicitation: (params) => {
        asked.push(`elicitation:${params.message}`);
        return { action: "accept", content: { name: "Ada" } };
      },
      onRoots: () => {
        asked.push("roots");
        return [{ uri: "file:///home/ada/project" }];
      },
      ...options,
    },
  );
  expect(connected.protocolVersion).toBe(VERSION);
  return { client: track(connected), asked };
}

const textOf = (result: { content: unknown }) => (result.content as Array<{ text: string }>)[0].text;

/** The raw first round of a tools/call from a 2026 client (what our client's MRTR driver hides). */
async function firstRound(url: string, name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": { sampling: {}, elicitation: { form: {} }, roots: {} },
  };
  const call = (id: number, extra: Record<string, unknown> = {}) =>
    post(url, JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta, ...extra } }), {
      "mcp-protocol-version": VERSION,
      ...headers,
    }).then((response) => response.json() as Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>);
  return { first: await call(1), retry: call };
}

describe("MRTR through the gateway: a 2026 client answers a server's requests in rounds", () => {
  it("a 2025 server's sampling, elicitation and roots requests come back as input_required, and the retry completes the call", async () => {
    const gateway = await servedAskingServer();
    const { client: modern, asked } = await modernClient(gateway.url);
    expect(textOf(await modern.callTool("up__ask_model", { question: "the answer?" }))).toBe("forty-two");
    expect(textOf(await modern.callTool("up__ask_user", { question: "your name?" }))).toBe("accept:Ada");
    expect(textOf(await modern.callTool("up__list_roots", {}))).toBe("file:///home/ada/project");
    expect(asked).toEqual(["sampling:the answer?", "elicitation:your name?", "roots"]);
  });

  it("a request asked after the first answer is a second round of the same call", async () => {
    const gateway = await servedAskingServer();
    const { client: modern, asked } = await modernClient(gateway.url);
    expect(textOf(await modern.callTool("up__ask_model_then_user", { question: "plan?" }))).toBe("forty-two/accept:Ada");
    expect(asked).toEqual(["sampling:plan?", 'elicitation:Keep "forty-two"?']);
  });

  it("a resources/read and a prompts/get that ask are answered in rounds too", async () => {
    const gateway = await servedAskingServer();
    const { client: modern, asked } = await modernClient(gateway.url);
    await modern.listResources();
    expect((await modern.readResource("asking://model-answer")).contents).toEqual([{ uri: "asking://model-answer", text: "forty-two" }]);
    expect((await modern.getPrompt("up__greeting")).messages).toEqual([{ role: "user", content: { type: "text", text: "Hello, Ada" } }]);
    expect(asked).toEqual(["sampling:for a resource", "elicitation:who is it for?"]);
  });

  it("a 2026 server's input requests (inside its results) reach the 2026 client the same way", async () => {
    const modernUpstream = track(await startSdkV2Http("reject"));
    const gateway = await serve({ servers: { modern: { url: modernUpstream.url } }, client });
    const { client: modern, asked } = await modernClient(gateway.url);
    expect(textOf(await modern.callTool("modern__summarize", { topic: "gateways" }))).toBe("forty-two | file:///home/ada/project");
    expect(asked.sort()).toEqual(["roots", "sampling:Summarize gateways"]);
  });

  it("a 2026 server's own keys reach the client, both in one round, and the answers go back under them", async () => {
    const modernUpstream = track(await startSdkV2Http("reject"));
    const gateway = await serve({ servers: { modern: { url: modernUpstream.url } }, client });
    const { first, retry } = await firstRound(gateway.url, "modern__summarize", { topic: "keys" });
    const requests = first.result!.inputRequests as Record<string, { method: string }>;
    expect(Object.fromEntries(Object.entries(requests).map(([key, { method }]) => [key, method]))).toEqual({
      summary: "sampling/createMessage",
      roots: "roots/list",
    });
    const done = await retry(2, {
      requestState: first.result!.requestState,
      inputResponses: { summary: { role: "assistant", model: "m", content: { type: "text", text: "short" } }, roots: { roots: [{ uri: "file:///k" }] } },
    });
    expect(done.result).toMatchObject({ content: [{ text: "short | file:///k" }] });
  });

  it("a client that did not declare the capability is never asked: the server gets -32021", async () => {
    const gateway = await servedAskingServer();
    const { client: modern, asked } = await modernClient(gateway.url, { onSampling: undefined });
    const result = await modern.callTool("up__ask_model", { question: "?" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/-32021.*sampling capability/s);
    expect(asked).toEqual([]);
  });

  it("the wire: keyed inputRequests and an opaque requestState; a forged or reused state is -32602", async () => {
    const gateway = await servedAskingServer();
    const { first, retry } = await firstRound(gateway.url, "up__ask_model", { question: "wire?" });
    const result = first.result!;
    expect(result.resultType).toBe("input_required");
    const requests = result.inputRequests as Record<string, { method: string; params: { messages: unknown[] } }>;
    const [key] = Object.keys(requests);
    expect(requests[key]).toMatchObject({ method: "sampling/createMessage", params: { messages: [{ content: { text: "wire?" } }] } });
    expect(result.requestState).toMatch(/^[\w-]{43}$/);
    const answer = { inputResponses: { [key]: { role: "assistant", model: "m", content: { type: "text", text: "by hand" } } } };
    const forged = await retry(2, { ...answer, requestState: `${String(result.requestState).slice(0, -2)}AA` });
    expect(forged.error).toMatchObject({ code: -32602, message: expect.stringContaining("requestState") });
    const done = await retry(3, { ...answer, requestState: result.requestState });
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "by hand" }] });
    const reused = await retry(4, { ...answer, requestState: result.requestState });
    expect(reused.error).toMatchObject({ code: -32602 });
  });

  it("a state is bound to the principal that got it: another principal's retry is refused, the owner's completes", async () => {
    const gateway = await servedAskingServer({ auth: { apiKeys: { "key-ada": "ada", "key-bob": "bob" } } });
    const ada = { authorization: "Bearer key-ada" };
    const { first, retry } = await firstRound(gateway.url, "up__ask_model", { question: "whose?" }, ada);
    const state = first.result!.requestState;
    const key = Object.keys(first.result!.inputRequests as object)[0];
    const answer = { inputResponses: { [key]: { role: "assistant", model: "m", content: { type: "text", text: "ada's" } } }, requestState: state };
    const asBob = await post(
      gateway.url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "up__ask_model",
          arguments: { question: "whose?" },
          ...answer,
          _meta: { "io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {} },
        },
      }),
      { "mcp-protocol-version": VERSION, authorization: "Bearer key-bob" },
    ).then((r) => r.json() as Promise<{ error?: { code: number } }>);
    expect(asBob.error).toMatchObject({ code: -32602 });
    expect((await retry(8, answer)).result).toMatchObject({ content: [{ text: "ada's" }] });
  });
});
