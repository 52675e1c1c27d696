/**
 * Refreshes test/catalog/real-tools.json: the tool lists of the real MCP servers installed as dev
 * dependencies (server-everything, -filesystem, -memory, -sequential-thinking, -github listing without a
 * token), captured once so the catalog tests and bench/catalog.ts do not spawn them.
 *
 *   npx tsx scripts/capture-catalog.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Switchboard } from "../src/index.js";

const require = createRequire(import.meta.url);
const bin = (pkg: string) => join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), "dist/index.js");
const root = mkdtempSync(join(tmpdir(), "capture-catalog-"));

const servers = {
  everything: { command: process.execPath, args: [bin("server-everything")] },
  filesystem: { command: process.execPath, args: [bin("server-filesystem"), root] },
  memory: { command: process.execPath, args: [bin("server-memory")], env: { MEMORY_FILE_PATH: join(root, "memory.json") } },
  thinking: { command: process.execPath, args: [bin("server-sequential-thinking")] },
  github: { command: process.execPath, args: [bin("server-github")] },
};

const board = new Switchboard({ servers });
try {
  await board.start();
  const out: Record<string, { package: string; version: string; tools: unknown[] }> = {};
  for (const name of board.serverNames) {
    const client = board.client(name);
    if (client === undefined) throw new Error(`server ${name} did not come up: ${board.status()[name]?.lastError ?? ""}`);
    out[name] = { package: client.serverInfo?.name ?? name, version: client.serverInfo?.version ?? "", tools: await client.listTools() };
  }
  const file = join(dirname(fileURLToPath(import.meta.url)), "../test/catalog/real-tools.json");
  writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
  console.log(Object.entries(out).map(([name, entry]) => `${name}: ${entry.tools.length} tools`).join(", "));
} finally {
  await board.stop();
  rmSync(root, { recursive: true, force: true });
}
