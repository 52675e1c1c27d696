/**
 * The URL policy, on loopback only (127.0.0.2 and 127.0.0.3 stand for "another host"): a refused URL
 * is refused before any TCP connection (each server counts the connections it accepted), whether it is
 * the server's own URL, a 307's target, or OAuth protected-resource metadata; a name is checked by what
 * it resolves to, at the connection itself (the agent's lookup); the defaults refuse cloud metadata.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, Switchboard, connect, memoryTokenStore, oauth, type SwitchboardInit } from "../../src/index.js";
import { UrlPolicy, classifyAddress, guardFetch, type AddressResolver } from "../../src/auth/url-policy.js";
import { createPool } from "../../src/transports/http-client.js";
// @ts-expect-error: plain JS example server
import { createEchoServer } from "../../examples/servers/echo-tools.mjs";

interface Counted {
  url: string;
  port: number;
  connections(): number;
  close(): Promise<void>;
}

const servers: Counted[] = [];
const boards: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(boards.splice(0).map((b) => b.stop()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** An MCP server (stateless, the echo tools) on `host`, counting accepted connections; `before` may answer first. */
async function serve(host: string, before?: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<Counted> {
  let connections = 0;
  const server = http.createServer((req, res) => {
    if (before?.(req, res)) return;
    void (async () => {
      let text = "";
      for await (const chunk of req) text += String(chunk);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await createEchoServer().connect(transport);
      res.on("close", () => void transport.close());
      await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
    })().catch(() => res.destroy());
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const counted = {
    url: `http://${host}:${port}/mcp`,
    port,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(counted);
  return counted;
}

async function board(init: SwitchboardInit): Promise<Switchboard> {
  const created = new Switchboard({ startTimeoutMs: 5000, ...init });
  boards.push(created);
  await created.start();
  return created;
}

const once = { restart: { maxRestarts: 0 } };

describe("URL policy", () => {
  it("a denied host is refused at start with a ConfigError naming the URL and the rule, before any connection", async () => {
    const denied = await serve("127.0.0.2");
    const allowed = await serve("127.0.0.3");
    const b = await board({
      servers: { denied: { url: denied.url, ...once }, allowed: { url: allowed.url, ...once } },
      urlPolicy: { denyHosts: ["127.0.0.2"] },
    });
    expect(b.status().allowed.state).toBe("up");
    expect(b.status().denied.state).toBe("down");
    expect(b.status().denied.downReason).toContain(`${denied.url} is refused by the URL policy: denyHosts`);
    expect(b.status().denied.downReason).toContain('field "urlPolicy.denyHosts"');
    expect(denied.connections()).toBe(0);
    expect(allowed.connections()).toBeGreaterThan(0);
  });

  it("allowHosts and allowLoopback: false refuse too; a name is judged by the address it resolves to", async () => {
    const target = await serve("127.0.0.2");
    const onlyOther = await board({ servers: { s: { url: target.url, ...once } }, urlPolicy: { allowHosts: ["127.0.0.3", "*.example.com"] } });
    expect(onlyOther.status().s.downReason).toMatch(/refused by the URL policy: allowHosts/);
    const noLoopback = await board({ servers: { s: { url: target.url, ...once } }, urlPolicy: { allowLoopback: false } });
    expect(noLoopback.status().s.downReason).toMatch(/allowLoopback is false/);
    const local = await serve("127.0.0.1");
    const byName = await board({ servers: { s: { url: `http://localhost:${local.port}/mcp`, ...once } }, urlPolicy: { denyHosts: ["127.0.0.1", "::1"] } });
    expect(byName.status().s.downReason).toMatch(/localhost:\d+\/mcp \((127\.0\.0\.1|::1)\) is refused by the URL policy: denyHosts/);
    expect(target.connections() + local.connections()).toBe(0);
  });

  it("the connection's own lookup refuses too (no gap between check and connect)", async () => {
    const local = await serve("127.0.0.1");
    const policy = new UrlPolicy({ denyHosts: ["127.0.0.1", "::1"] });
    const pool = createPool(new URL(`http://localhost:${local.port}/`), 1, policy);
    const failure = await pool.request({ path: "/", method: "GET" }).then(
      () => new Error("connected") as NodeJS.ErrnoException,
      (error: NodeJS.ErrnoException) => error,
    );
    await pool.destroy();
    expect(failure.code).toBe("EURLPOLICY");
    expect(failure.message).toMatch(/localhost resolves to .* refused by the URL policy \(denyHosts\)/);
    expect(local.connections()).toBe(0);
  });

  it("a 307 to a denied host is refused with the rule before the hop connects", async () => {
    const denied = await serve("127.0.0.2");
    const redirecting = await serve("127.0.0.3", (_req, res) => {
      res.writeHead(307, { location: denied.url }).end();
      return true;
    });
    const client = connect({ url: redirecting.url }, { urlPolicy: { denyHosts: ["127.0.0.2"] }, protocol: "legacy" });
    await expect(client).rejects.toThrow(`${denied.url} is refused by the URL policy: denyHosts`);
    expect(redirecting.connections()).toBeGreaterThan(0);
    expect(denied.connections()).toBe(0);
  });

  it("OAuth protected-resource metadata on a denied host, or on the cloud metadata address by default, is never fetched", async () => {
    const metadata = await serve("127.0.0.2");
    let pointTo = `http://127.0.0.2:${metadata.port}/.well-known/oauth-protected-resource`;
    const protectedServer = await serve("127.0.0.3", (_req, res) => {
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${pointTo}"` }).end();
      return true;
    });
    const auth = () => oauth({ store: memoryTokenStore(), grant: "client_credentials", clientId: "c", clientSecret: "s" });
    const denied = connect({ url: protectedServer.url, auth: auth() }, { urlPolicy: { denyHosts: ["127.0.0.2"] }, protocol: "legacy" });
    await expect(denied).rejects.toThrow(/127\.0\.0\.2:\d+\/\.well-known\/oauth-protected-resource is refused by the URL policy: denyHosts/);
    expect(metadata.connections()).toBe(0);

    pointTo = "https://169.254.169.254/latest/meta-data/iam";
    await expect(connect({ url: protectedServer.url, auth: auth() }, { protocol: "legacy" })).rejects.toThrow(
      /169\.254\.169\.254\/latest\/meta-data\/iam is refused by the URL policy: cloud metadata addresses are always refused/,
    );
    pointTo = "https://10.1.2.3/.well-known/oauth-protected-resource";
    await expect(connect({ url: protectedServer.url, auth: auth() }, { protocol: "legacy" })).rejects.toThrow(/a private address that came from a server/);
  });

  it("classifies addresses", () => {
    const cases: Array<[string, string]> = [
      ["127.0.0.2", "loopback"],
      ["::1", "loopback"],
      ["10.0.0.1", "private"],
      ["172.20.1.1", "private"],
      ["172.32.1.1", "public"],
      ["192.168.1.1", "private"],
      ["100.64.0.1", "private"],
      ["169.254.169.254", "metadata"],
      ["169.254.1.1", "link-local"],
      ["fe80::1", "link-local"],
      ["fd12::1", "private"],
      ["::ffff:10.0.0.1", "private"],
      ["::ffff:169.254.169.254", "metadata"],
      ["0.0.0.0", "unspecified"],
      ["8.8.8.8", "public"],
      ["2001:db8::1", "public"],
    ];
    for (const [address, kind] of cases) expect([address, classifyAddress(address)]).toEqual([address, kind]);
    const policy = new UrlPolicy();
    expect(policy.refusal("10.0.0.1", "10.0.0.1", "config")).toBeUndefined();
    expect(policy.refusal("10.0.0.1", "10.0.0.1", "server")).toMatch(/private/);
    expect(new UrlPolicy({ allowPrivate: true }).refusal("10.0.0.1", "10.0.0.1", "server")).toBeUndefined();
    expect(policy.refusal("metadata.google.internal", undefined, "config")).toMatch(/metadata/);
    expect(new UrlPolicy({ denyHosts: ["*.corp.example"] }).refusal("db.corp.example", "8.8.8.8", "config")).toBe("denyHosts");
  });

  it("a bad urlPolicy is a ConfigError naming the field", () => {
    const make = (urlPolicy: unknown) => () => new Switchboard({ servers: {}, urlPolicy: urlPolicy as never });
    expect(make("all")).toThrow(ConfigError);
    expect(make({ denyHosts: "x" })).toThrow(/field "urlPolicy\.denyHosts"/);
    expect(make({ allowPrivate: "yes" })).toThrow(/field "urlPolicy\.allowPrivate"/);
    expect(make({ allowHost: [] })).toThrow(/field "urlPolicy\.allowHost"/);
  });
});

describe("OAuth requests and a rebinding DNS", () => {
  /** `name` resolves to `answers[0]`, then `answers[1]`, ... (the last one from then on); every other name fails. */
  function rebinding(name: string, answers: string[]): { resolver: AddressResolver; asked(): number } {
    let asked = 0;
    const resolver: AddressResolver = (hostname, callback) => {
      if (hostname !== name) return callback(Object.assign(new Error(`${hostname}: not found`), { code: "ENOTFOUND" }), []);
      const address = answers[Math.min(asked++, answers.length - 1)];
      callback(null, [{ address, family: 4 }]);
    };
    return { resolver, asked: () => asked };
  }

  /** A JSON answer on 127.0.0.2, and on 127.0.0.3 at the same port the host a rebinding DNS would lead to. */
  async function pair(): Promise<{ good: Counted; evil: Counted }> {
    const json = (_req: IncomingMessage, res: ServerResponse) => (res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'), true);
    const good = await serve("127.0.0.2", json);
    let evilConnections = 0;
    const server = http.createServer((_req, res) => res.end("{}"));
    server.on("connection", () => evilConnections++);
    await new Promise<void>((resolve) => server.listen(good.port, "127.0.0.3", resolve));
    const evil: Counted = {
      url: `http://127.0.0.3:${good.port}/`,
      port: good.port,
      connections: () => evilConnections,
      close: () => (server.closeAllConnections(), new Promise<void>((resolve) => server.close(() => resolve()))),
    };
    servers.push(evil);
    return { good, evil };
  }

  it("the address checked is the address connected to: a second DNS answer on a denied address never gets a connection", async () => {
    const { good, evil } = await pair();
    const url = `http://as.test:${good.port}/.well-known/oauth-authorization-server`;
    const rebind = rebinding("as.test", ["127.0.0.2", "127.0.0.3"]);
    const policy = new UrlPolicy({ denyHosts: ["127.0.0.3"] }, rebind.resolver);
    const fetchAs = guardFetch(
      undefined,
      () => policy,
      () => false,
    );
    await expect(fetchAs(url)).rejects.toMatchObject({
      cause: { code: "EURLPOLICY", message: /as\.test resolves to 127\.0\.0\.3, refused by the URL policy \(denyHosts\)/ },
    });
    expect(rebind.asked()).toBe(2); // once for the check, once for the connection
    expect(evil.connections()).toBe(0);

    // The same name answered steadily: the fetch connects where the policy's resolver says.
    const steady = new UrlPolicy({ denyHosts: ["127.0.0.3"] }, rebinding("as.test", ["127.0.0.2"]).resolver);
    const response = await guardFetch(
      undefined,
      () => steady,
      () => false,
    )(url);
    expect(await response.json()).toEqual({ ok: true });
    expect(good.connections()).toBe(1);
    await Promise.all([policy.close(), steady.close()]);
  });

  it("OAuth protected-resource metadata behind a rebinding name is refused at the connection, before any byte reaches the denied address", async () => {
    const { good, evil } = await pair();
    const protectedServer = await serve("127.0.0.2", (_req, res) => {
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="http://meta.localhost:${good.port}/.well-known/oauth-protected-resource"` }).end();
      return true;
    });
    const rebind = rebinding("meta.localhost", ["127.0.0.2", "127.0.0.3"]);
    const policy = new UrlPolicy({ denyHosts: ["127.0.0.3"], allowPrivate: false }, rebind.resolver);
    const auth = oauth({ store: memoryTokenStore(), grant: "client_credentials", clientId: "c", clientSecret: "s" });
    await expect(connect({ url: protectedServer.url, auth }, { urlPolicy: policy, protocol: "legacy" })).rejects.toThrow(/refused by the URL policy/);
    expect(rebind.asked()).toBeGreaterThanOrEqual(2);
    expect(evil.connections()).toBe(0);
    expect(good.connections()).toBe(0);
    await policy.close();
  });
});
