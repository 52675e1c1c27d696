/**
 * Multi-round-trip requests (2026 era) over a memory pair: input requests answered by the same
 * handlers that serve 2025 server requests, retries that keep the params and echo the state, the
 * rounds limit, undeclared kinds, -32021, URL-mode elicitation.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, InputRequiredRoundsError, McpClient, McpError, ProtocolError, type ClientOptions } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { modernServer, replyError } from "../helpers/modern-server.js";

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const STATE = 'c2VydmVyLW9wYXF1ZQ==\u00e9 with spaces and "quotes"';
const ELICIT = {
  method: "elicitation/create",
  params: { mode: "form", message: "Deploy?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
};
const SAMPLE = { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 } };
const ROOTS = { method: "roots/list" };

const handlers: ClientOptions = {
  onElicitation: () => ({ action: "accept", content: { ok: true } }),
  onSampling: () => ({ role: "assistant", content: { type: "text", text: "sampled" }, model: "m" }),
  roots: [{ uri: "file:///work", name: "work" }],
};

async function open(server: ReturnType<typeof modernServer>, options: ClientOptions = handlers): Promise<McpClient> {
  const client = await connect(server.clientSide, options);
  clients.push(client);
  return client;
}

function params(request: unknown): Record<string, unknown> {
  return (request as JsonRpcRequest).params as Record<string, unknown>;
}

describe("MRTR (input_required)", () => {
  it("checklist 15: every inputRequests key is answered, requestState is echoed byte-exact, a new id is used, the original params are kept", async () => {
    const server = modernServer();
    server.on("tools/call", (request) => {
      if (params(request).inputResponses === undefined)
        return { resultType: "input_required", inputRequests: { confirm: ELICIT, summary: SAMPLE, roots: ROOTS }, requestState: STATE };
      return { resultType: "complete", content: [{ type: "text", text: "deployed" }] };
    });
    const client = await open(server);
    const answer = await client.callTool("deploy", { env: "prod" });
    expect(answer.content).toEqual([{ type: "text", text: "deployed" }]);
    const [first, retry] = server.messages("tools/call") as JsonRpcRequest[];
    expect(retry.id).not.toEqual(first.id);
    expect(params(retry)).toMatchObject({ name: "deploy", arguments: { env: "prod" } });
    expect(params(retry).requestState).toBe(STATE);
    expect(params(retry).inputResponses).toEqual({
      confirm: { action: "accept", content: { ok: true } },
      summary: { role: "assistant", content: { type: "text", text: "sampled" }, model: "m" },
      roots: { roots: [{ uri: "file:///work", name: "work" }] },
    });
  });

  it("checklist 15: the handlers run in parallel, and prompts/get and resources/read take part too", async () => {
    const server = modernServer();
    server.capabilities = {};
    let running = 0;
    let peak = 0;
    const slow = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 30));
      running--;
      return { action: "accept", content: { ok: true } } as const;
    };
    for (const method of ["prompts/get", "resources/read"]) {
      server.on(method, (request) =>
        params(request).inputResponses === undefined
          ? { resultType: "input_required", inputRequests: { a: ELICIT, b: ELICIT } }
          : { resultType: "complete", messages: [], contents: [] },
      );
    }
    const client = await open(server, { ...handlers, onElicitation: slow, enforceCapabilities: false });
    await client.getPrompt("p");
    await client.readResource("a://b");
    expect(peak).toBe(2);
    expect(server.messages("prompts/get")).toHaveLength(2);
    expect(server.messages("resources/read")).toHaveLength(2);
  });

  it("checklist 16: a requestState-only round is retried without prompting; the rounds limit gives a typed error", async () => {
    const server = modernServer();
    let rounds = 0;
    server.on("tools/call", (request) => {
      if ((params(request).name as string) === "later")
        return rounds++ < 1 ? { resultType: "input_required", requestState: "come back" } : { resultType: "complete", content: [] };
      return { resultType: "input_required", requestState: `round-${String(params(request).requestState ?? 0)}` };
    });
    let prompted = 0;
    const client = await open(server, { ...handlers, onElicitation: () => (prompted++, { action: "cancel" }) });
    const started = Date.now();
    await client.callTool("later");
    expect(Date.now() - started).toBeGreaterThanOrEqual(200); // a short pause before coming back
    expect(prompted).toBe(0);
    expect(params(server.messages("tools/call")[1]).requestState).toBe("come back");
    const error = await client.callTool("forever").catch((e) => e);
    expect(error).toBeInstanceOf(InputRequiredRoundsError);
    expect(error.rounds).toBe(10);
    expect(error.message).toMatch(/after 10 rounds/);
  }, 10_000);

  it("checklist 17: input kinds the client did not declare fail clearly; -32021 names the required capabilities", async () => {
    const server = modernServer();
    server.on("tools/call", (request) => {
      if (params(request).name === "needs_sampling") return { resultType: "input_required", inputRequests: { s: SAMPLE } };
      if (params(request).name === "needs_url")
        return {
          resultType: "input_required",
          inputRequests: { u: { method: "elicitation/create", params: { mode: "url", message: "Sign in", url: "https://x" } } },
        };
      return replyError(server, request.id, -32021, "Missing required client capability", { requiredCapabilities: { sampling: {} } });
    });
    const client = await open(server, { onElicitation: () => ({ action: "accept" }), capabilities: { elicitation: {} } });
    const sampling = await client.callTool("needs_sampling").catch((e) => e);
    expect(sampling).toBeInstanceOf(McpError);
    expect(sampling.message).toMatch(/asked for sampling\/createMessage.*did not declare the sampling capability/);
    const url = await client.callTool("needs_url").catch((e) => e);
    expect(url.message).toMatch(/URL-mode elicitation/);
    const missing = await client.callTool("other").catch((e) => e);
    expect(missing).toBeInstanceOf(ProtocolError);
    expect(missing.code).toBe(-32021);
    expect(missing.message).toMatch(/\{"sampling":\{\}\}.*onSampling/);
    expect(server.messages("tools/call")).toHaveLength(3); // nothing was retried
  });

  it("checklist 19: URL-mode elicitation asks for consent, answers {action: accept} without content, retries; no elicitationId", async () => {
    const server = modernServer();
    server.on("tools/call", (request) =>
      params(request).inputResponses === undefined
        ? {
            resultType: "input_required",
            inputRequests: { login: { method: "elicitation/create", params: { mode: "url", message: "Sign in", url: "https://auth.example/x" } } },
            requestState: "s",
          }
        : { resultType: "complete", content: [{ type: "text", text: "signed in" }] },
    );
    const shown: unknown[] = [];
    const client = await open(server, { onElicitation: (p) => (shown.push(p), { action: "accept", content: { ignored: true } }) });
    expect((await client.callTool("login")).content).toEqual([{ type: "text", text: "signed in" }]);
    expect(shown).toEqual([{ mode: "url", message: "Sign in", url: "https://auth.example/x" }]);
    const retry = params(server.messages("tools/call")[1]);
    expect(retry.inputResponses).toEqual({ login: { action: "accept" } });
    expect(JSON.stringify(server.received)).not.toContain("elicitationId");
  });

  it("input_required on a method that may not carry it is rejected", async () => {
    const server = modernServer();
    server.on("tools/list", () => ({ resultType: "input_required", requestState: "x" }));
    const client = await open(server);
    await expect(client.listTools()).rejects.toThrow(/input_required is only allowed on tools\/call, prompts\/get and resources\/read/);
  });
});
