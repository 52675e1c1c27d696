/**
 * Machine-to-machine and concurrency against oidc-provider: client credentials; 64 calls that meet a
 * 401 together cause one refresh; 64 connections that need authorization together cause one grant;
 * connections in a process share tokens; and two processes sharing a token file (one grant between
 * them, and one refresh when both find the token expired at once).
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { connect, fileTokenStore, memoryTokenStore, oauth } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { browse } from "./fixtures/authorization-server.js";
import { MACHINE_CLIENT as MACHINE, startProtectedPair, temporaryDirectories } from "./fixtures/setup.js";

const run = promisify(execFile);
const track = closeAfterEach();
const child = fileURLToPath(new URL("./fixtures/token-file-child.ts", import.meta.url));

const setup = () => startProtectedPair(track);
const tempDirectory = temporaryDirectories();

function runChild(...args: string[]): Promise<string> {
  return run(process.execPath, ["--import", "tsx", child, ...args], { timeout: 60_000 }).then(({ stdout }) => stdout.trim());
}

/** Starts `count` children, waits until each is ready, then lets them all go at once. */
async function runTogether(count: number, ...args: string[]): Promise<string[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ["--import", "tsx", child, ...args], { env: { ...process.env, BARRIER: "1" }, stdio: ["pipe", "pipe", "inherit"] }),
  );
  const outputs = children.map((c) => {
    let text = "";
    c.stdout.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    return { text: () => text, exited: once(c, "exit") };
  });
  for (const [i] of children.entries()) while (!outputs[i].text().includes("ready")) await once(children[i].stdout, "data");
  for (const c of children) c.stdin.end("go\n");
  const codes = await Promise.all(outputs.map((o) => o.exited));
  expect(codes.map(([code]) => code)).toEqual(children.map(() => 0));
  return outputs.map((o) => o.text());
}

// Some tests here start child programs through tsx, which compiles the client on each start: seconds
// apiece on a loaded 2-core machine, where the suite's 30 s per test was seen to run out. The bound is
// for that CPU work; nothing here waits on a clock.
describe("machine-to-machine and concurrency", { timeout: 90_000 }, () => {
  it("client_credentials with a client secret, no person involved", async () => {
    const { as, mcp } = await setup();
    const client = track(
      await connect({
        url: mcp.url,
        auth: oauth({ store: memoryTokenStore(), grant: "client_credentials", clientId: "machine", clientSecret: MACHINE.client_secret }),
      }),
    );
    expect((await client.callTool("echo", { text: "m2m" })).content).toEqual([{ type: "text", text: "m2m" }]);
    expect(as.grants).toEqual(["client_credentials"]);
    expect(as.authorizations).toHaveLength(0);
  });

  it("64 connections needing authorization at once cause one grant, and share the token", async () => {
    const { as, mcp } = await setup();
    const auth = oauth({ store: memoryTokenStore(), grant: "client_credentials", clientId: "machine", clientSecret: MACHINE.client_secret });
    const clients = await Promise.all(Array.from({ length: 64 }, () => connect({ url: mcp.url, auth }, { protocol: "legacy" })));
    for (const client of clients) track(client);
    await Promise.all(clients.map((client, i) => client.callTool("echo", { text: String(i) })));
    expect(as.grants).toEqual(["client_credentials"]);
  });

  it("providers without a store share the process's tokens for the same server and issuer", async () => {
    const { as, mcp } = await setup();
    const options = { grant: "client_credentials" as const, clientId: "machine", clientSecret: MACHINE.client_secret };
    track(await connect({ url: mcp.url, auth: oauth(options) }));
    track(await connect({ url: mcp.url, auth: oauth(options) }));
    expect(as.grants).toEqual(["client_credentials"]);
  });

  it("64 calls that meet a 401 together cause one refresh, and all of them succeed", async () => {
    const { as, mcp } = await setup();
    const person = async (url: URL) => void (await browse(url));
    const client = track(await connect({ url: mcp.url, auth: oauth({ store: memoryTokenStore(), loopback: true, onAuthorizationUrl: person }) }));
    await client.callTool("echo", { text: "warm" });
    mcp.refuseSeenTokens();
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => client.callTool("echo", { text: String(i) })));
    expect(results.map((r) => r.content)).toEqual(Array.from({ length: 64 }, (_, i) => [{ type: "text", text: String(i) }]));
    expect(as.grants.filter((grant) => grant === "refresh_token")).toHaveLength(1);
    expect(as.authorizations).toHaveLength(1);
  });

  it("a token file written by one process serves another without a new grant; mode 0600", async () => {
    const { as, mcp } = await setup();
    const file = join(await tempDirectory(), "tokens.json");
    expect(await runChild(file, mcp.url, "client_credentials", "machine", MACHINE.client_secret)).toContain("from");
    expect(await runChild(file, mcp.url, "client_credentials", "machine", MACHINE.client_secret)).toContain("from");
    expect(as.grants).toEqual(["client_credentials"]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("two processes finding the shared token expired at once refresh it once (rotation-safe)", async () => {
    const { as, mcp } = await setup();
    const file = join(await tempDirectory(), "tokens.json");
    const store = fileTokenStore(file);
    const person = async (url: URL) => void (await browse(url));
    const client = await connect({ url: mcp.url, auth: oauth({ store, loopback: true, onAuthorizationUrl: person }) });
    await client.close();
    // Expired as far as both children can tell.
    await store.update(mcp.resource, as.issuer, (current) => ({ ...current!, tokens: { ...current!.tokens!, expiresAt: Date.now() - 1_000 } }));
    const outputs = await runTogether(2, file, mcp.url);
    expect(outputs.every((out) => out.includes("from"))).toBe(true);
    expect(as.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(as.grantErrors).toEqual([]);
  });
});
