/**
 * Catalogs on a Switchboard: `searchTools` over every server (following list_changed), the catalog
 * snapshot file, and lazy servers (not started by start(), started once by concurrent first calls,
 * put to sleep by idleMs, listed from the snapshot without starting).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/jsonrpc/errors.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach, echoServer, node } from "../switchboard/board-helpers.js";

const board = boardsAfterEach();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "catalog-board-"));
  dirs.push(dir);
  return dir;
}

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object", properties: {} } });

/** A factory of scripted servers listing `tools`: one new server per start, counted. */
function serverFactory(tools: () => unknown[]) {
  const made: ScriptedServer[] = [];
  const transport = () => {
    const server = new ScriptedServer().on("tools/list", () => ({ tools: tools() }));
    made.push(server);
    return server.clientSide;
  };
  return { made, transport };
}

describe("board.searchTools", () => {
  it("searches every server's tools by qualified name, and follows list_changed", async () => {
    let mathTools = [tool("add", "Add two numbers"), tool("multiply", "Multiply two numbers")];
    const math = serverFactory(() => mathTools);
    const files = serverFactory(() => [tool("read_file", "Read a text file from disk")]);
    const b = board({ servers: { math: { transport: math.transport, protocol: "legacy" }, files: { transport: files.transport, protocol: "legacy" } } });
    await b.start();
    expect((await b.searchTools("open a file from disk"))[0]).toMatchObject({ name: "files__read_file", server: "files" });
    expect((await b.searchTools("product of two numbers, multiply"))[0].name).toBe("math__multiply");
    expect(await b.searchTools("divide")).toEqual([]);

    mathTools = [tool("divide", "Divide one number by another")];
    math.made[0].notify("notifications/tools/list_changed");
    await waitFor(() => math.made[0].messages("tools/list").length >= 2);
    let found: string[] = [];
    await waitFor(() => {
      void b.searchTools("divide").then((hits) => (found = hits.map((hit) => hit.name)));
      return found[0] === "math__divide";
    });
    expect((await b.searchTools("multiply")).map((hit) => hit.name)).not.toContain("math__multiply");
  });

  it("answers a wrong query or limit with a ConfigError naming the field", async () => {
    const b = board({ servers: { one: { transport: serverFactory(() => []).transport, protocol: "legacy" } } });
    await b.start();
    await expect(b.searchTools(42 as unknown as string)).rejects.toThrow(ConfigError);
    await expect(b.searchTools("x", { limit: 0 })).rejects.toThrow(/field "limit"/);
    await expect(b.searchTools("x", { limit: 1.5 })).rejects.toThrow(/whole number/);
  });
});

describe("lazy servers", () => {
  it("100 lazy stdio servers: start() spawns nothing and every server stays idle", async () => {
    const servers: Record<string, { command: string; args: string[]; lazy: true }> = {};
    for (let i = 0; i < 100; i++) servers[`s${i}`] = { command: node, args: [echoServer], lazy: true };
    const b = board({ servers });
    await b.start();
    expect(liveProcessCount()).toBe(0);
    expect(new Set(Object.values(b.status()).map((status) => status.state))).toEqual(new Set(["idle"]));
  });

  it("concurrent first calls start the server once; idleMs puts it back to sleep; the next call wakes it", async () => {
    const lazy = serverFactory(() => [tool("echo", "Echo text")]);
    const b = board({ servers: { lazy: { transport: lazy.transport, protocol: "legacy", lazy: true, idleMs: 150 } } });
    await b.start();
    expect(lazy.made).toHaveLength(0);
    expect(b.status().lazy.state).toBe("idle");
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => b.callTool("lazy__echo", { text: `hi ${i}` })));
    expect(results.map((result) => (result.content[0] as { text: string }).text)).toEqual(Array.from({ length: 10 }, (_, i) => `hi ${i}`));
    expect(lazy.made).toHaveLength(1);
    expect(b.status().lazy.state).toBe("up");
    await waitFor(() => b.status().lazy.state === "idle", 5000);
    expect(b.client("lazy")).toBeUndefined();
    const again = await b.callTool("lazy__echo", { text: "back" });
    expect((again.content[0] as { text: string }).text).toBe("back");
    expect(lazy.made).toHaveLength(2);
  });

  it("calls keep a lazy server awake past idleMs", async () => {
    const lazy = serverFactory(() => [tool("echo", "Echo text")]);
    // Calls 40 ms apart for 2.5 times idleMs: the margin (idleMs is 15 gaps) holds on a loaded machine,
    // where a 40 ms nap and a call can take a few hundred ms.
    const b = board({ servers: { lazy: { transport: lazy.transport, protocol: "legacy", lazy: true, idleMs: 600 } } });
    await b.start();
    await b.callTool("lazy__echo", { text: "a" });
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      await b.callTool("lazy__echo", { text: "b" });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect(lazy.made).toHaveLength(1);
    expect(b.status().lazy.state).toBe("up");
  });

  it("without a snapshot, the first listing starts a lazy server once and lists it", async () => {
    const lazy = serverFactory(() => [tool("weather", "Forecast for a city")]);
    const b = board({ servers: { lazy: { transport: lazy.transport, protocol: "legacy", lazy: true } } });
    await b.start();
    const [first, second] = await Promise.all([b.listTools(), b.listTools()]);
    expect(first.map((t) => t.name)).toEqual(["lazy__weather"]);
    expect(second.map((t) => t.name)).toEqual(["lazy__weather"]);
    expect(lazy.made).toHaveLength(1);
  });
});

describe("catalog snapshots", () => {
  it("are written after each listing, atomically, and let a later board list and search lazy servers without starting them", async () => {
    const file = join(tempDir(), "catalog.json");
    const eager = serverFactory(() => [tool("create_invoice", "Create an invoice for a customer")]);
    const first = board({ servers: { billing: { transport: eager.transport, protocol: "legacy" } }, catalogFile: file });
    await first.start();
    await first.listTools();
    await waitFor(() => {
      try {
        return JSON.parse(readFileSync(file, "utf8")).servers.billing.tools[0].name === "create_invoice";
      } catch {
        return false;
      }
    });
    await first.stop();
    expect(readdirSync(join(file, "..")).filter((name) => name.endsWith(".tmp"))).toEqual([]);

    const later = serverFactory(() => [tool("create_invoice", "Create an invoice for a customer")]);
    const second = board({ servers: { billing: { transport: later.transport, protocol: "legacy", lazy: true } }, catalogFile: file });
    await second.start();
    expect((await second.listTools()).map((t) => t.name)).toEqual(["billing__create_invoice"]);
    expect((await second.searchTools("bill a customer"))[0].name).toBe("billing__create_invoice");
    expect(later.made).toHaveLength(0);
    expect(second.status().billing.state).toBe("idle");
    await second.callTool("billing__create_invoice", {});
    expect(later.made).toHaveLength(1);
    await second.stop();
  });

  it("a catalog file that is not a snapshot is a ConfigError naming catalogFile; a wrong type too", async () => {
    const file = join(tempDir(), "bad.json");
    writeFileSync(file, '{"hello": 1}');
    const b = board({ servers: { one: { transport: serverFactory(() => []).transport, protocol: "legacy", lazy: true } }, catalogFile: file });
    await expect(b.start()).rejects.toThrow(/catalogFile/);
    writeFileSync(file, "{not json");
    const c = board({ servers: { one: { transport: serverFactory(() => []).transport, protocol: "legacy", lazy: true } }, catalogFile: file });
    await expect(c.start()).rejects.toThrow(/not JSON/);
    expect(() => board({ servers: {}, catalogFile: 42 as unknown as string })).toThrow(ConfigError);
  });
});
