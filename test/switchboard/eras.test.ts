/**
 * The Switchboard and its supervisor never branch on the protocol era: a 2026 server and a 2025 server
 * side by side in auto mode, one namespaced tool list, calls to both; a supervisor restart of the 2026
 * server reuses the cached era verdict instead of probing again.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import type { StdioTransport } from "../../src/transports/stdio.js";
import { waitFor } from "../helpers/processes.js";
import { rememberVerdict } from "../../src/connection/eras/verdict-cache.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";
import type { Transport } from "../../src/transports/transport.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { modernServer, replyError } from "../helpers/modern-server.js";

const modernStdio = fileURLToPath(new URL("../../examples/servers/modern-stdio.mjs", import.meta.url));
const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
const node = process.execPath;
const fastRestart = { maxRestarts: 5, withinMs: 10_000, backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 } };

let board: Switchboard | undefined;
afterEach(async () => {
  await board?.stop();
  board = undefined;
  expect(liveProcessCount()).toBe(0);
});

describe("Switchboard across protocol eras", () => {
  it('honours a server entry\'s protocol: "legacy" sends initialize first, the default probes with server/discover', async () => {
    const pinned = new ScriptedServer();
    const probed = new ScriptedServer();
    board = new Switchboard({
      servers: { pinned: { transport: () => pinned.clientSide, protocol: "legacy" }, probed: { transport: () => probed.clientSide } },
    });
    await board.start();
    expect((pinned.received[0] as { method: string }).method).toBe("initialize");
    expect((probed.received[0] as { method: string }).method).toBe("server/discover");
    expect(board.client("pinned")!.era).toBe("legacy");
    expect(board.client("probed")!.era).toBe("legacy");
  });

  it("serves a 2026 and a 2025 server side by side; a restart of the 2026 server re-asks server/discover when its facts had no ttlMs (checklist 12, 29)", async () => {
    board = new Switchboard({
      servers: {
        modern: { command: node, args: [modernStdio, "modern-only", `--case=${Math.random()}`], restart: fastRestart },
        old: { command: node, args: [echoServer, `--case=${Math.random()}`] },
      },
    });
    await board.start();
    expect(board.client("modern")!.era).toBe("modern");
    expect(board.client("old")!.era).toBe("legacy");
    const names = (await board.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["modern__echo", "modern__add", "old__echo"]));
    expect((await board.callTool("modern__add", { a: 1, b: 2 })).content).toEqual([{ type: "text", text: "3" }]);
    expect((await board.callTool("old__echo", { text: "2025" })).content).toEqual([{ type: "text", text: "2025" }]);

    const discovered = board.client("modern")!.discover;
    const pid = (board.client("modern")!.connection.transport as StdioTransport).pid!;
    process.kill(pid, "SIGKILL");
    await waitFor(() => board!.status().modern.restarts > 0 && board!.status().modern.state === "up");
    const restarted = board.client("modern")!;
    expect(restarted.era).toBe("modern");
    // The SDK v2 server gives its DiscoverResult no ttlMs, so the restart asked server/discover again
    // (fresh facts) instead of reusing the cached one; the era itself was never in doubt.
    expect(restarted.discover).not.toBe(discovered);
    expect(restarted.discover).toEqual(discovered);
    expect((await board.callTool("modern__echo", { text: "after restart" })).content).toEqual([{ type: "text", text: "after restart" }]);
  }, 20_000);

  it("the tool list of a 2026 server (SDK v2 over HTTP) changes: the automatic listen invalidates the Switchboard's tool cache", async () => {
    const server = await startSdkV2Http("reject");
    try {
      board = new Switchboard({ servers: { modern: { url: server.url } } });
      await board.start();
      expect(board.client("modern")!.era).toBe("modern");
      const names = async () => (await board!.listTools()).map((t) => t.name);
      expect(await names()).not.toContain("modern__fresh");
      server.extraTools.push("fresh");
      let changed = 0;
      board.on("listsChanged", () => changed++);
      // The listen may still be opening: publish until the change arrives (bounded).
      for (let i = 0; i < 100 && changed === 0; i++) {
        server.notify.toolsChanged();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(changed).toBeGreaterThan(0);
      expect(await names()).toContain("modern__fresh");
      expect((await board.callTool("modern__fresh", {})).content).toEqual([{ type: "text", text: "fresh" }]);
      expect(server.requests.filter((r) => r.body?.method === "subscriptions/listen")).toHaveLength(1);
    } finally {
      await board?.stop();
      board = undefined;
      await server.close();
    }
  }, 20_000);

  it("checklist 12: a cached 2026 verdict that stops working on a live connection is dropped; the supervisor's next restart probes again and lands in the 2025 era", async () => {
    // Three generations of one server identity, one per (re)start: 2026, then a 2025 server that
    // the cached verdict wrongly takes for 2026, then the same 2025 server again.
    const identity = `test:${Math.random()}`;
    const notInitialized = new ScriptedServer();
    notInitialized.on("tools/call", (request, s) => replyError(s, request.id, -32000, "Bad Request: Server not initialized"));
    const generations: ScriptedServer[] = [modernServer(), notInitialized, new ScriptedServer()];
    let started = 0;
    const sameIdentity = (transport: Transport): Transport =>
      new Proxy(transport, {
        get(target, property) {
          if (property === "identity") return identity;
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    board = new Switchboard({
      servers: { srv: { transport: () => sameIdentity(generations[started++].clientSide), client: { autoListen: false }, restart: fastRestart } },
    });
    const errors: Error[] = [];
    board.on("error", ({ error }) => errors.push(error));
    await board.start();
    expect(board.client("srv")!.era).toBe("modern");
    await board.listTools(); // the names stay routable across restarts

    await generations[0].crash();
    await waitFor(() => started === 2 && board!.status().srv.state === "up");
    expect(board.client("srv")!.era).toBe("modern"); // the cached verdict skipped the probe...
    // No probe (the board's own tools/list on `up` is all it got before the call).
    expect(generations[1].messages("server/discover")).toHaveLength(0);
    expect(generations[1].messages("initialize")).toHaveLength(0);
    await expect(board.callTool("srv__echo", { text: "x" })).rejects.toThrow(/not initialized/); // ...wrongly
    expect(errors.some((e) => /probes the protocol era again/.test(e.message))).toBe(true);

    await generations[1].crash();
    await waitFor(() => started === 3 && board!.status().srv.state === "up");
    await board.listTools(); // shares the listing the board began when the server came up
    const reprobed = generations[2].received.filter((m) => "method" in m && "id" in m).map((m) => (m as { method: string }).method);
    expect(reprobed.slice(0, 2)).toEqual(["server/discover", "initialize"]);
    expect(reprobed.slice(2)).toEqual(["tools/list"]); // the board lists the tools of a server that came up
    expect(board.client("srv")!.era).toBe("legacy");
    expect((await board.callTool("srv__echo", { text: "back" })).content).toEqual([{ type: "text", text: "back" }]);
  }, 20_000);

  it("checklist 12: a real 2025 server (SDK v1, stdio) behind a stale cached 2026 verdict: its first result without resultType drops the verdict, and the next restart re-probes", async () => {
    board = new Switchboard({
      servers: { old: { command: node, args: [echoServer, `--case=${Math.random()}`], restart: fastRestart, client: { autoListen: false } } },
    });
    const errors: Error[] = [];
    board.on("error", ({ error }) => errors.push(error));
    await board.start();
    expect(board.client("old")!.era).toBe("legacy");
    await board.listTools();
    // As if this command line had served 2026 before and was downgraded since.
    const identity = board.client("old")!.connection.transport.identity;
    rememberVerdict(identity, {
      kind: "modern",
      discover: { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 60_000, cacheScope: "public" },
    });
    const kill = () => process.kill((board!.client("old")!.connection.transport as StdioTransport).pid!, "SIGKILL");
    kill();
    await waitFor(() => board!.status().old.restarts === 1 && board!.status().old.state === "up");
    expect(board.client("old")!.era).toBe("modern"); // the stale verdict skipped the probe
    // Taken as complete (the spec's rule for a result without resultType): it is the server's real answer.
    expect((await board.callTool("old__echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }]);
    expect(errors.some((e) => /probes the protocol era again/.test(e.message))).toBe(true);
    kill();
    await waitFor(() => board!.status().old.restarts === 2 && board!.status().old.state === "up");
    expect(board.client("old")!.era).toBe("legacy");
    expect((await board.callTool("old__echo", { text: "healed" })).content).toEqual([{ type: "text", text: "healed" }]);
  }, 20_000);
});
