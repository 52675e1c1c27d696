/**
 * Gateway replicas behind a real load balancer: three `mcp-switchboard serve` processes with one fleet
 * (a shared Redis) and one upstream Streamable HTTP server, behind haproxy from Debian (round-robin,
 * no stickiness). The official SDK client and our connect() each keep one session through haproxy
 * while their calls land on every replica; a list change and a log message reach the SDK client's GET
 * stream whichever replica holds it; after kill -9 of one replica both sessions go on, and the GET
 * stream comes back on another replica. Server requests (sampling) reach a 2025 client on its call's
 * stream and a 2026 client in input rounds, and their answers reach the replica that asked, wherever
 * haproxy sends them. A process suite (slow): `npm run test:procs`.
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/client/connect.js";
import type { McpClient } from "../../src/client/client.js";
import { INSTALL_REDIS, freePort, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { waitFor } from "../helpers/processes.js";
import { startStreamableHttpServer, type StreamableServer } from "../fixtures/http-servers.js";

const HAPROXY = ["haproxy", "/usr/sbin/haproxy"].find((bin) => spawnSync(bin, ["-v"]).status === 0);
const INSTALL_HAPROXY = "the load-balancer test needs haproxy: apt-get install haproxy";
const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const REPLICAS = 3;

/** The upstream, one SDK server per session: `whoami` names the session (so the replica) a call came through. */
function upstreamServer(): Promise<StreamableServer> {
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
      const extra = mcp.registerTool("extra", { description: "Listed after grow." }, async () => ({ content: [{ type: "text", text: "extra" }] }));
      extra.disable();
      extras.push(extra);
      return mcp;
    },
  });
}

/** A gateway process; resolves with its port once it says where it serves. */
function startGateway(config: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", cli, "serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /at http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
      if (found) resolve({ child, port: Number(found[1]) });
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

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describe.skipIf(!redisAvailable || HAPROXY === undefined)("gateway replicas behind haproxy (round-robin, no sticky sessions)", () => {
  let redis: TestRedis;
  let upstream: StreamableServer;
  let dir: string;
  const gateways: Array<{ child: ChildProcess; port: number }> = [];
  let haproxy: ChildProcess | undefined;
  let url: string;

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await upstreamServer();
    dir = mkdtempSync(join(tmpdir(), "mcpsb-haproxy-"));
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ fleet: { redis: redis.url, prefix: "lb" }, gateway: { port: 0 }, mcpServers: { up: { url: upstream.url, protocol: "legacy" } } }),
    );
    gateways.push(...(await Promise.all(Array.from({ length: REPLICAS }, () => startGateway(config)))));
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

  afterAll(async () => {
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
});

describe.skipIf(redisAvailable && HAPROXY !== undefined)("gateway replicas behind haproxy", () => {
  it.skip(HAPROXY === undefined ? INSTALL_HAPROXY : INSTALL_REDIS, () => {});
});
