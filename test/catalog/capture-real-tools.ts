/**
 * Refreshes test/catalog/real-tools.json: the tool lists of the real MCP servers installed as dev
 * dependencies (server-everything, -filesystem, -memory, -sequential-thinking, -github listing without a
 * token), captured once so the catalog tests and bench/catalog.ts do not spawn them.
 *
 *   npx tsx test/catalog/capture-real-tools.ts && npx prettier --write test/catalog/real-tools.json
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Switchboard } from "../../src/index.js";

const require = createRequire(import.meta.url);
const bin = (manifest: string) => join(dirname(manifest), "dist/index.js");
const root = mkdtempSync(join(tmpdir(), "capture-catalog-"));

const servers = {
  everything: { command: process.execPath, args: [bin(require.resolve("@modelcontextprotocol/server-everything/package.json"))] },
  filesystem: { command: process.execPath, args: [bin(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), root] },
  memory: {
    command: process.execPath,
    args: [bin(require.resolve("@modelcontextprotocol/server-memory/package.json"))],
    env: { MEMORY_FILE_PATH: join(root, "memory.json") },
  },
  thinking: { command: process.execPath, args: [bin(require.resolve("@modelcontextprotocol/server-sequential-thinking/package.json"))] },
  github: { command: process.execPath, args: [bin(require.resolve("@modelcontextprotocol/server-github/package.json"))] },
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
  const file = join(dirname(fileURLToPath(import.meta.url)), "./real-tools.json");
  writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
  console.log(
    Object.entries(out)
      .map(([name, entry]) => `${name}: ${entry.tools.length} tools`)
      .join(", "),
  );
} finally {
  await board.stop();
  rmSync(root, { recursive: true, force: true });
}
