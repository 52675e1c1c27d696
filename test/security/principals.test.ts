/**
 * Principals over one real HTTP server (the SDK's Streamable HTTP server, one session per client): each
 * principal's calls carry its own credentials on its own session, 100 interleaved calls of two
 * principals show 0 crossovers, lists private to a user never reach another, the per-principal
 * sessions are bounded and closed when idle, and a server without URL needs `shared: true`.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, Switchboard, memoryPair, memoryTokenStore, oauth, runAgent, type AgentModel, type SwitchboardInit } from "../../src/index.js";
import { principalStore } from "../../src/switchboard/principals.js";
import { toSdkTransport } from "../helpers/sdk-bridge.js";

interface UsersServer {
  url: string;
  /** Open sessions by the user that opened them. */
  sessions(): string[];
  close(): Promise<void>;
}

const userOf = (authorization: unknown) => (typeof authorization === "string" ? authorization.replace(/^Bearer token-/, "") : "anonymous");

/** Each session belongs to the user of its initialize request and lists a tool private to that user. */
async function usersServer(): Promise<UsersServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; user: string }>();
  const server = http.createServer((req, res) => {
    void (async () => {
      let text = "";
      for await (const chunk of req) text += String(chunk);
      const body = text ? JSON.parse(text) : undefined;
      const id = req.headers["mcp-session-id"] as string | undefined;
      let transport = id ? sessions.get(id)?.transport : undefined;
      if (!transport) {
        if (id) return void res.writeHead(404).end();
        const user = userOf(req.headers.authorization);
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void sessions.set(sid, { transport: created, user }),
        });
        created.onclose = () => void (created.sessionId && sessions.delete(created.sessionId));
        const mcp = new McpServer({ name: "users", version: "1.0.0" });
        mcp.registerTool("whoami", { description: "Who is calling." }, async (extra) => ({
          content: [{ type: "text", text: `${userOf(extra.requestInfo?.headers.authorization)}|${user}` }],
        }));
        mcp.registerTool(`${user}_private`, { description: `Only for ${user}.` }, async () => ({ content: [{ type: "text", text: user }] }));
        await mcp.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    sessions: () => [...sessions.values()].map((s) => s.user).sort(),
    close: async () => {
      for (const { transport } of sessions.values()) await transport.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const opened: Array<{ close(): Promise<void> } | Switchboard> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await (item instanceof Switchboard ? item.stop() : item.close());
});

async function setUp(extra: Partial<SwitchboardInit> = {}): Promise<{ board: Switchboard; users: UsersServer }> {
  const users = await usersServer();
  opened.push(users);
  const board = new Switchboard({
    servers: { api: { url: users.url, principalHeaders: (principal) => ({ authorization: `Bearer token-${principal}` }) } },
    client: { protocol: "legacy" },
    ...extra,
  });
  opened.push(board);
  await board.start();
  return { board, users };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe("principals", () => {
  it("100 interleaved calls of two principals: each on its own session with its own token, 0 crossovers", async () => {
    const { board, users } = await setUp();
    const principals = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? "alice" : "bob"));
    const results = await Promise.all(principals.map((principal) => board.callTool("api__whoami", {}, { principal })));
    const answers = results.map((result) => (result.content[0] as { text: string }).text);
    const crossovers = answers.filter((answer, i) => answer !== `${principals[i]}|${principals[i]}`);
    expect(crossovers).toEqual([]);
    expect(users.sessions()).toEqual(["alice", "anonymous", "bob"]);
    // The call without a principal stays on the board's own session.
    expect((await board.callTool("api__whoami")).content[0]).toEqual({ type: "text", text: "anonymous|anonymous" });
  });

  it("lists private to a user are never served to another", async () => {
    const { board } = await setUp();
    const names = async (list: Promise<Array<{ name: string }>>) => (await list).map((tool) => tool.name).sort();
    expect(await names(board.forPrincipal("alice").listTools())).toEqual(["api__alice_private", "api__whoami"]);
    expect(await names(board.forPrincipal("bob").listTools())).toEqual(["api__bob_private", "api__whoami"]);
    expect(await names(board.listTools())).toEqual(["api__anonymous_private", "api__whoami"]);
    expect(await board.forPrincipal("bob").callTool("api__whoami")).toEqual({ content: [{ type: "text", text: "bob|bob" }] });
  });

  it("runAgent({ principal }) lists that principal's tools and calls with its credentials", async () => {
    const { board } = await setUp();
    let offered: string[] = [];
    const model: AgentModel = async (request) => {
      if (request.turn === 1) offered = request.tools.map((tool) => tool.name).sort();
      return request.turn === 1
        ? { message: { role: "assistant", content: [{ type: "tool_use", id: "1", name: "api__whoami", input: {} }] } }
        : { message: { role: "assistant", content: [{ type: "text", text: "ok" }] } };
    };
    const run = await runAgent({ model, host: board, messages: "who am I?", principal: "alice" });
    expect(offered).toEqual(["api__alice_private", "api__whoami"]);
    const result = run.messages.find((message) => message.role === "tool")!.content[0] as { content: Array<{ text: string }> };
    expect(result.content[0].text).toBe("alice|alice");
  });

  it("per-principal sessions are bounded (least recently used closed) and closed when idle", async () => {
    const { board, users } = await setUp({ principals: { maxPrincipals: 2, idleMs: 300 } });
    for (const principal of ["alice", "bob", "carol"]) await board.callTool("api__whoami", {}, { principal });
    await until(() => users.sessions().join() === "anonymous,bob,carol");
    await until(() => users.sessions().join() === "anonymous");
    expect((await board.callTool("api__whoami", {}, { principal: "alice" })).content[0]).toEqual({ type: "text", text: "alice|alice" });
  });

  it("a server without URL takes principals only with shared: true; bad principals are ConfigErrors", async () => {
    const transport = () => {
      const [clientSide, serverSide] = memoryPair();
      const mcp = new McpServer({ name: "local", version: "1.0.0" });
      mcp.registerTool("ping", { description: "Pong." }, async () => ({ content: [{ type: "text", text: "pong" }] }));
      void mcp.connect(toSdkTransport(serverSide));
      return clientSide;
    };
    const board = new Switchboard({ servers: { own: { transport }, shared: { transport, shared: true } }, client: { protocol: "legacy" } });
    opened.push(board);
    await board.start();
    await expect(board.callTool("own__ping", {}, { principal: "alice" })).rejects.toThrow(/server "own", field "shared"/);
    expect(await board.callTool("shared__ping", {}, { principal: "alice" })).toEqual({ content: [{ type: "text", text: "pong" }] });
    expect((await board.forPrincipal("alice").listTools()).map((t) => t.name)).toEqual(["shared__ping"]);
    await expect(board.callTool("shared__ping", {}, { principal: "" })).rejects.toThrow(/field "principal"/);
    expect(() => board.forPrincipal(7 as unknown as string)).toThrow(ConfigError);
    expect(() => new Switchboard({ servers: {}, principals: { maxPrincipals: 0 } })).toThrow(/principals\.maxPrincipals/);
  });

  it("OAuth tokens are kept per principal in the one token store", async () => {
    const store = memoryTokenStore();
    const alice = principalStore(store, "alice");
    const bob = principalStore(store, "bob");
    const server = "https://mcp.example.com/mcp";
    await alice.update(server, "https://as.example.com", () => ({ tokens: { accessToken: "alice-token", tokenType: "bearer", obtainedAt: 1 }, updatedAt: 1 }));
    expect((await alice.get(server, "https://as.example.com"))?.tokens?.accessToken).toBe("alice-token");
    expect(await bob.get(server, "https://as.example.com")).toBeUndefined();
    expect(await store.get(server, "https://as.example.com")).toBeUndefined();
    expect(await bob.issuers(server)).toEqual([]);
    expect(await alice.issuers(server)).toEqual(["https://as.example.com"]);
  });
});

describe("principals with OAuth", () => {
  it("each principal authorizes for itself: its own tokens in the one store, the board's own untouched", async () => {
    const { startProtectedPair, MACHINE_CLIENT } = await import("../auth/fixtures/setup.js");
    const track = <T extends { close(): Promise<unknown> }>(item: T): T => (opened.push({ close: async () => void (await item.close()) }), item);
    const { as, mcp } = await startProtectedPair(track);
    const store = memoryTokenStore();
    const auth = oauth({ store, grant: "client_credentials", clientId: "machine", clientSecret: MACHINE_CLIENT.client_secret });
    const board = new Switchboard({ servers: { api: { url: mcp.url, auth } }, client: { protocol: "legacy" } });
    opened.push(board);
    await board.start();
    expect(board.status().api.state).toBe("up");
    expect(as.grants).toHaveLength(1); // the board's own connection
    for (const principal of ["alice", "bob", "alice"]) {
      expect((await board.callTool("api__echo", { text: principal }, { principal })).content).toEqual([{ type: "text", text: principal }]);
    }
    expect(as.grants).toHaveLength(3); // one more per principal, none for alice's second call
    const server = new URL(mcp.url).href;
    const tokenOf = async (key: string) => (await store.get(key, (await store.issuers(key))[0]))?.tokens?.accessToken;
    const [own, alice, bob] = await Promise.all([tokenOf(server), tokenOf(`${server}#principal=alice`), tokenOf(`${server}#principal=bob`)]);
    expect(new Set([own, alice, bob]).size).toBe(3);
    expect(principalStore(store, "alice").id).not.toBe(store.id);
  });
});
