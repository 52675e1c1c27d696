/**
 * Gateway replicas behind a real load balancer: three `mcp-switchboard serve` processes with one fleet
 * (a shared Redis) and one upstream Streamable HTTP server, behind haproxy from Debian (round-robin,
 * no stickiness). The official SDK client and our connect() each keep one session through haproxy
 * while their calls land on every replica; a list change and a log message reach the SDK client's GET
 * stream whichever replica holds it; after kill -9 of one replica both sessions go on, and the GET
 * stream comes back on another replica. Server requests (sampling) reach a 2025 client on its call's
 * stream and a 2026 client in input rounds, and their answers reach the replica that asked, wherever
 * haproxy sends them. When the replica holding a 2026 client's round is killed (kill -9) while the
 * relayed retry runs, the retry fails with -32603 ("stopped answering", about 15 s after the kill) and
 * the survivors serve the next call; killed before the retry, the retry gets -32602 after the 2 s
 * claim window, saying to make the call again; when the replica relaying the retry is killed, the
 * holder cancels the call upstream (about 15 s later) and serves on. A killed replica starts again on
 * its port before the next test. A process suite (slow): `npm run test:procs`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connect } from "../../src/client/connect.js";
import type { McpClient } from "../../src/client/client.js";
import { ProtocolError } from "../../src/jsonrpc/errors.js";
import type { CallToolResult } from "../../src/client/types.js";
import { INSTALL_REDIS, freePort, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { waitFor } from "../helpers/processes.js";
import { startStreamableHttpServer, type StreamableServer } from "../fixtures/http-servers.js";

const HAPROXY = ["haproxy", "/usr/sbin/haproxy"].find((bin) => spawnSync(bin, ["-v"]).status === 0);
const INSTALL_HAPROXY = "the load-balancer test needs haproxy: apt-get install haproxy";
const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const REPLICAS = 3;

/** A `hold` call as the upstream saw it: the upstream session (so the replica) it ran on, whether the client's answer came, whether the gateway cancelled it. */
interface Hold {
  readonly session: string;
  answered: boolean;
  cancelled: boolean;
}

/**
 * The upstream, one SDK server per session: `whoami` names the session (so the replica) a call came
 * through; `hold` asks the client's model, then runs until cancelled or `stop` aborts (the tests end).
 */
function upstreamServer(holds: Hold[], stop: AbortSignal): Promise<StreamableServer> {
  const extras: RegisteredTool[] = [];
  return startStreamableHttpServer({
    stateful: true,
    createServer: () => {
      const mcp = new McpServer({ name: "up", version: "1.0.0" }, { capabilities: { logging: {} } });
      mcp.registerTool("whoami", { description: "The upstream session of this call." }, async (extra) => ({
        content: [{ type: "text", text: extra.sessionId ?? "?" }],
      }));
      mcp.registerTool("log", { description: "Sends a log message." }, async () => {
        await mcp.server.sendLoggingMessage({ level: "warning", data: "from upstream" });
        return { content: [{ type: "text", text: "logged" }] };
      });
      mcp.registerTool("grow", { description: "Adds the tool `extra` on every session." }, async () => {
        for (const tool of extras) tool.enable();
        return { content: [{ type: "text", text: "grown" }] };
      });
      mcp.registerTool("ask", { description: "Asks the client's model, on the call's own stream." }, async (extra) => {
        const answer = await mcp.server.createMessage(
          { messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 5 },
          { relatedRequestId: extra.requestId },
        );
        return { content: [{ type: "text", text: answer.content.type === "text" ? answer.content.text : "?" }] };
      });
      mcp.registerTool("hold", { description: "Asks the client's model, then runs until cancelled." }, async (extra) => {
        const hold: Hold = { session: extra.sessionId ?? "?", answered: false, cancelled: false };
        holds.push(hold);
        extra.signal.addEventListener("abort", () => (hold.cancelled = true), { once: true });
        const running = AbortSignal.any([extra.signal, stop]);
        await mcp.server.createMessage(
          { messages: [{ role: "user", content: { type: "text", text: "go on?" } }], maxTokens: 5 },
          { relatedRequestId: extra.requestId, signal: running },
        );
        hold.answered = true;
        await new Promise((resolve) => running.addEventListener("abort", resolve, { once: true }));
        return { content: [{ type: "text", text: "held" }] };
      });
      const extra = mcp.registerTool("extra", { description: "Listed after grow." }, async () => ({ content: [{ type: "text", text: "extra" }] }));
      extra.disable();
      extras.push(extra);
      return mcp;
    },
  });
}

interface Gateway {
  readonly child: ChildProcess;
  readonly port: number;
}

/** A gateway process on `port` (fixed, so a replica killed by a test starts again where haproxy expects it); resolves once it serves. */
function startGateway(config: string, port: number): Promise<Gateway> {
  const child = spawn(process.execPath, ["--import", "tsx", cli, "serve", config, "--port", String(port)], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`at http://127.0.0.1:${port}/`)) resolve({ child, port });
    });
    child.once("exit", () => reject(new Error(`serve exited: ${stderr}`)));
  });
}

/** Round-robin, no stickiness; a replica that refuses connections is left for the next (redispatch). */
function haproxyConfig(port: number, gateways: number[]): string {
  return [
    "global",
    "  maxconn 512",
    "defaults",
    "  mode http",
    "  timeout connect 1s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  retries 3",
    "  option redispatch 1",
    "  retry-on conn-failure",
    "frontend mcp",
    `  bind 127.0.0.1:${port}`,
    "  default_backend gateways",
    "backend gateways",
    "  balance roundrobin",
    "  option http-server-close",
    ...gateways.map((p, i) => `  server g${i + 1} 127.0.0.1:${p} check inter 300 fall 1 rise 2`),
    "",
  ].join("\n");
}

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

const isAlive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** A 2026 client's model, asked by the upstream `hold` tool. */
const sayYes = () => ({ role: "assistant" as const, model: "m", content: { type: "text" as const, text: "yes" } });

/** A `hold` call through the balancer: resolves with its error, or undefined if it returned. */
const holdOutcome = (client: McpClient, timeoutMs: number): Promise<unknown> =>
  client.callTool("up__hold", {}, { timeoutMs }).then(
    () => undefined,
    (error: unknown) => error,
  );

function exited(child: ChildProcess): Promise<void> {
  if (!isAlive(child)) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describe.skipIf(!redisAvailable || HAPROXY === undefined)("gateway replicas behind haproxy (round-robin, no sticky sessions)", () => {
  let redis: TestRedis;
  let upstream: StreamableServer;
  let dir: string;
  let config: string;
  const gateways: Gateway[] = [];
  let haproxy: ChildProcess | undefined;
  let url: string;
  const holds: Hold[] = [];
  const stopHolds = new AbortController();

  /** The upstream session of the replica on `port`'s board, asked directly, not through haproxy. */
  async function upstreamSessionOf(port: number): Promise<string> {
    const direct = await connect({ url: `http://127.0.0.1:${port}/mcp` }, { protocol: "2026-07-28" });
    try {
      return textOf(await direct.callTool("up__whoami", {}));
    } finally {
      await direct.close();
    }
  }

  /** The live replica whose board runs upstream session `session`. */
  async function replicaOf(session: string): Promise<Gateway> {
    for (const gateway of gateways) if (isAlive(gateway.child) && (await upstreamSessionOf(gateway.port)) === session) return gateway;
    throw new Error(`no live replica has upstream session ${session}`);
  }

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await upstreamServer(holds, stopHolds.signal);
    dir = mkdtempSync(join(tmpdir(), "mcpsb-haproxy-"));
    config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ fleet: { redis: redis.url, prefix: "lb" }, gateway: { port: 0 }, mcpServers: { up: { url: upstream.url, protocol: "legacy" } } }),
    );
    const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
    gateways.push(...(await Promise.all(ports.map((port) => startGateway(config, port)))));
    const port = await freePort();
    const haproxyCfg = join(dir, "haproxy.cfg");
    writeFileSync(
      haproxyCfg,
      haproxyConfig(
        port,
        gateways.map((g) => g.port),
      ),
    );
    haproxy = spawn(HAPROXY!, ["-db", "-f", haproxyCfg], { stdio: "ignore" });
    url = `http://127.0.0.1:${port}/mcp`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const answered = await fetch(url, { method: "DELETE" }).then(
        (r) => r.status === 400,
        () => false,
      );
      if (answered) break;
      if (Date.now() > deadline) throw new Error("haproxy did not answer within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 60_000);

  // A test that killed a replica leaves it down; the next starts with all of them again, on the same
  // ports, once haproxy's health check (every 300 ms, up after two) sends calls to each.
  beforeEach(async () => {
    const dead = gateways.flatMap((gateway, index) => (isAlive(gateway.child) ? [] : [index]));
    if (dead.length === 0) return;
    for (const index of dead) gateways[index] = await startGateway(config, gateways[index].port);
    const everyReplica = new Set(await Promise.all(gateways.map((gateway) => upstreamSessionOf(gateway.port))));
    const client = await connect({ url }, { protocol: "2026-07-28" });
    try {
      const reached = new Set<string>();
      const deadline = Date.now() + 10_000;
      while ([...everyReplica].some((session) => !reached.has(session))) {
        if (Date.now() > deadline) throw new Error("haproxy did not send calls to the restarted replica within 10 s");
        reached.add(textOf(await client.callTool("up__whoami", {})));
      }
    } finally {
      await client.close();
    }
  }, 30_000);

  afterAll(async () => {
    stopHolds.abort();
    haproxy?.kill("SIGTERM");
    for (const { child } of gateways) child.kill("SIGTERM");
    await Promise.all([...gateways.map((g) => exited(g.child)), ...(haproxy ? [exited(haproxy)] : [])]);
    await upstream?.close();
    await redis?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("server requests reach the client, and its answers the replica that asked, wherever the balancer sends them", async () => {
    const sdk = new Client({ name: "sdk-sampling", version: "1.0.0" }, { capabilities: { sampling: {} } });
    sdk.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", model: "m", content: { type: "text", text: "four" } }));
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    // A 2026 client: each sampling request comes back in an input_required round, whose retry the
    // balancer sends to the next replica, not the one whose call waits for it.
    const modern = await connect(
      { url },
      { protocol: "2026-07-28", onSampling: () => ({ role: "assistant", model: "m", content: { type: "text", text: "four, in rounds" } }) },
    );
    try {
      for (let i = 0; i < REPLICAS * 2; i++) {
        expect((await sdk.callTool({ name: "up__ask", arguments: {} })).content).toEqual([{ type: "text", text: "four" }]);
        expect((await modern.callTool("up__ask", {})).content).toEqual([{ type: "text", text: "four, in rounds" }]);
      }
    } finally {
      await modern.close();
      await sdk.close();
    }
  }, 60_000);

  it("one session per client serves calls on every replica, hears list changes and logs, and survives kill -9 of a replica", async () => {
    const sdk = new Client({ name: "sdk-through-haproxy", version: "1.0.0" });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    let ours: McpClient | undefined;
    try {
      ours = await connect({ url }, { protocol: "legacy" });
      const listChanged: number[] = [];
      const logs: unknown[] = [];
      sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(Date.now()));
      sdk.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      await sdk.setLoggingLevel("info");

      const whoami = async (client: "sdk" | "ours") => {
        const result = client === "sdk" ? await sdk.callTool({ name: "up__whoami", arguments: {} }) : await ours!.callTool("up__whoami", {});
        return (result.content as Array<{ text: string }>)[0].text;
      };
      const upstreamSessions = new Set<string>();
      for (let i = 0; i < 30; i++) {
        upstreamSessions.add(await whoami("sdk"));
        upstreamSessions.add(await whoami("ours"));
      }
      // Each replica's board has its own upstream session: the calls of one downstream session reached all three.
      expect(upstreamSessions.size).toBe(REPLICAS);

      await sdk.callTool({ name: "up__grow", arguments: {} });
      await waitFor(() => listChanged.length > 0, 10_000, 50);
      for (let i = 0; i < REPLICAS; i++) expect((await sdk.listTools()).tools.map((t) => t.name)).toContain("up__extra");
      await sdk.callTool({ name: "up__log", arguments: {} });
      await waitFor(() => logs.length > 0, 10_000, 50);
      expect(logs[0]).toMatchObject({ level: "warning", data: "from upstream", logger: "up" });

      const victim = gateways[0].child;
      victim.kill("SIGKILL");
      await exited(victim);
      const survivors = new Set<string>();
      for (let i = 0; i < 30; i++) {
        survivors.add(await whoami("sdk"));
        survivors.add(await whoami("ours"));
      }
      expect(survivors.size).toBe(REPLICAS - 1);
      // The GET stream (wherever it was) is open on a live replica again: a log message still arrives.
      const before = logs.length;
      await waitFor(
        () => {
          void sdk.callTool({ name: "up__log", arguments: {} }).catch(() => {});
          return logs.length > before;
        },
        15_000,
        500,
      );
    } finally {
      await ours?.close();
      await sdk.close();
    }
  }, 90_000);

  // The replica holding a 2026 client's round dies (kill -9): the client hears so in bounded time, and
  // the survivors go on serving. Which replica holds it: the one whose upstream session runs `hold`.
  it("a round whose holder is killed mid-call fails the retry with -32603 in bounded time; the survivors serve", async () => {
    const asked = holds.length;
    const client = await connect({ url }, { protocol: "2026-07-28", onSampling: sayYes });
    try {
      // The call lands on one replica (the holder) and its retry, with the answer, on the next, which
      // relays it to the holder through Redis; the upstream tool then runs on until cancelled.
      const call = holdOutcome(client, 40_000);
      await waitFor(() => holds[asked]?.answered === true, 10_000, 20);
      const holder = await replicaOf(holds[asked].session);
      holder.child.kill("SIGKILL");
      const killedAt = Date.now();
      const error = await call;
      const tookMs = Date.now() - killedAt;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32603, message: expect.stringMatching(/stopped answering \(it may have died\).*make the call again/) });
      // The holder says it is alive every 5 s; three silent ones (15 s from its last word) mean it died.
      expect(tookMs).toBeLessThan(20_000);
      expect(gateways.filter((gateway) => gateway !== holder).every((gateway) => isAlive(gateway.child))).toBe(true);
      for (let i = 0; i < REPLICAS; i++) expect(textOf(await client.callTool("up__whoami", {}))).not.toBe(holds[asked].session);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a round whose holder is killed before the retry fails it with -32602 within the claim window, saying to call again", async () => {
    const asked = holds.length;
    let retriedAt = 0;
    let holder: Gateway | undefined;
    const client = await connect(
      { url },
      {
        protocol: "2026-07-28",
        // The client has the input_required result in hand: its holder dies before the retry goes out.
        onSampling: async () => {
          holder = await replicaOf(holds[asked].session);
          holder.child.kill("SIGKILL");
          await exited(holder.child);
          retriedAt = Date.now();
          return sayYes();
        },
      },
    );
    try {
      const error = await holdOutcome(client, 20_000);
      const tookMs = Date.now() - retriedAt;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/replica holding it is gone.*make the call again/) });
      // Nobody claims it: the replica the retry reached waits CLAIM_MS (2 s), no longer.
      expect(tookMs).toBeGreaterThanOrEqual(1_900);
      expect(tookMs).toBeLessThan(4_000);
      expect(holds[asked].answered).toBe(false);
      expect(gateways.filter((gateway) => gateway !== holder).every((gateway) => isAlive(gateway.child))).toBe(true);
      expect(textOf(await client.callTool("up__whoami", {}))).not.toBe(holds[asked].session);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a round whose asking replica is killed is cancelled upstream by its holder, which serves on", async () => {
    const asked = holds.length;
    const client = await connect({ url }, { protocol: "2026-07-28", onSampling: sayYes });
    try {
      const call = holdOutcome(client, 40_000);
      await waitFor(() => holds[asked]?.answered === true, 10_000, 20);
      const holder = await replicaOf(holds[asked].session);
      // The retry is on one of the others, relayed to the holder: killing both kills the one it is on.
      for (const gateway of gateways) if (gateway !== holder) gateway.child.kill("SIGKILL");
      const killedAt = Date.now();
      // The client's retry went with its replica; the holder, no longer asked, cancels the call upstream.
      expect(await call).toBeInstanceOf(Error);
      await waitFor(() => holds[asked].cancelled, 25_000, 50);
      const tookMs = Date.now() - killedAt;
      expect(tookMs).toBeLessThan(20_000);
      expect(isAlive(holder.child)).toBe(true);
      expect(textOf(await client.callTool("up__whoami", {}))).toBe(holds[asked].session);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe.skipIf(redisAvailable && HAPROXY !== undefined)("gateway replicas behind haproxy", () => {
  it.skip(HAPROXY === undefined ? INSTALL_HAPROXY : INSTALL_REDIS, () => {});
});
