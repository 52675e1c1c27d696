/**
 * Regenerates the corpus files that come from running servers (the corpus tests only read the JSON):
 *
 *   npx tsx test/adapters/corpus/collect.ts [dir-with-node_modules]
 *
 * - server-everything from this repository's node_modules;
 * - the filesystem, GitHub, memory, sequential-thinking and Playwright servers from npm, installed in
 *   the given directory (`npm install @modelcontextprotocol/server-filesystem
 *   @modelcontextprotocol/server-github @modelcontextprotocol/server-memory
 *   @modelcontextprotocol/server-sequential-thinking @playwright/mcp`), skipped when absent;
 * - an official SDK (v1) server whose zod schemas cover what zod users write (intersections, unions,
 *   records, recursion, refinements), so its tools carry the SDK's own JSON Schema conversion.
 * pydantic.json comes from generate_pydantic.py.
 */
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { connect, memoryPair, type Tool } from "../../../src/index.js";
import { toSdkTransport } from "../../helpers/sdk-bridge.js";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

async function listOver(target: Parameters<typeof connect>[0]): Promise<{ server: string; tools: Tool[] }> {
  const client = await connect(target, { protocol: "legacy" });
  try {
    return { server: `${client.serverInfo?.name} ${client.serverInfo?.version}`, tools: await client.listTools() };
  } finally {
    await client.close();
  }
}

function write(file: string, source: string, tools: Tool[]): void {
  const kept = tools.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, ...(annotations ? { annotations } : {}) }));
  writeFileSync(here(file), `${JSON.stringify({ source, tools: kept }, null, 2)}\n`);
  console.log(`${file}: ${kept.length} tools`);
}

function zodServer(): McpServer {
  const server = new McpServer({ name: "zod-corpus", version: "1.0.0" });
  const noop = async () => ({ content: [] });
  const Audit = z.object({ actor: z.string().describe("Who asked"), reason: z.string().optional() });
  const Page = z.object({ cursor: z.string().optional(), limit: z.number().int().min(1).max(100).default(20) });
  server.registerTool("search_orders", { description: "Intersections of reusable objects", inputSchema: { query: z.string().min(1), page: Page.and(z.object({ sort: z.enum(["newest", "oldest"]).default("newest") })), audit: Audit.and(z.object({ ticket: z.string().regex(/^[A-Z]+-\d+$/) })) } }, noop);
  server.registerTool("send_message", {
    description: "Discriminated union of recipients",
    inputSchema: {
      to: z.discriminatedUnion("type", [z.object({ type: z.literal("user"), id: z.string() }), z.object({ type: z.literal("channel"), name: z.string(), thread: z.string().nullable() })]),
      body: z.string().max(4000),
      priority: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
      schedule_at: z.iso.datetime().optional(),
    },
  }, noop);
  type Category = { name: string; subcategories: Category[] };
  const CategorySchema: z.ZodType<Category> = z.lazy(() => z.object({ name: z.string(), subcategories: z.array(CategorySchema) }));
  server.registerTool("import_categories", { description: "A recursive tree", inputSchema: { root: CategorySchema, replace: z.boolean().default(false) } }, noop);
  server.registerTool("update_settings", {
    description: "Records, nullable and tuples",
    inputSchema: {
      values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
      remove: z.array(z.string()).nullable(),
      window: z.tuple([z.number().int(), z.number().int()]).optional(),
      contact: z.email().optional(),
      homepage: z.url().optional(),
      id: z.uuid().optional(),
    },
  }, noop);
  return server;
}

/** zod 3 schemas go through zod-to-json-schema in the SDK: `allOf` for intersections, `#/properties/...` refs for reuse. */
function zod3Server(): McpServer {
  const server = new McpServer({ name: "zod3-corpus", version: "1.0.0" });
  const noop = async () => ({ content: [] });
  const Money = z3.object({ amount: z3.number().nonnegative(), currency: z3.enum(["USD", "EUR", "GBP"]) });
  const Line = z3.object({ sku: z3.string(), quantity: z3.number().int().positive() });
  server.registerTool("create_invoice", {
    description: "Intersection and a reused object",
    inputSchema: {
      customer: z3.object({ id: z3.string() }).and(z3.object({ email: z3.string().email().optional() })),
      subtotal: Money,
      total: Money,
      lines: z3.array(Line).min(1).max(50),
      discount: z3.union([z3.object({ percent: z3.number().min(0).max(100) }), z3.object({ fixed: Money })]).nullable().optional(),
    },
  }, noop);
  server.registerTool("tag_resources", {
    description: "Records, defaults and nested optionals",
    inputSchema: {
      resources: z3.array(z3.string().url()).nonempty(),
      tags: z3.record(z3.string()).default({}),
      options: z3.object({ overwrite: z3.boolean().default(false), dryRun: z3.boolean().optional() }).strict().optional(),
      when: z3.string().datetime().optional(),
    },
  }, noop);
  return server;
}

const npmDir = process.argv[2];
const base = npmDir ? `${npmDir}/node_modules` : undefined;
const everything = here("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const listed = await listOver({ command: process.execPath, args: [everything, "stdio"] });
write("everything.json", `@modelcontextprotocol/server-everything (${listed.server}), tools/list over stdio`, listed.tools);

const npmServers: Array<[file: string, pkg: string, entry: string, args: string[], env?: Record<string, string>]> = [
  ["filesystem.json", "@modelcontextprotocol/server-filesystem", "dist/index.js", ["/tmp"]],
  ["github.json", "@modelcontextprotocol/server-github", "dist/index.js", [], { GITHUB_PERSONAL_ACCESS_TOKEN: "unused-for-listing" }],
  ["memory.json", "@modelcontextprotocol/server-memory", "dist/index.js", []],
  ["sequential-thinking.json", "@modelcontextprotocol/server-sequential-thinking", "dist/index.js", []],
  ["playwright.json", "@playwright/mcp", "cli.js", ["--headless"]],
];
for (const [file, pkg, entry, args, env] of npmServers) {
  const path = base && `${base}/${pkg}/${entry}`;
  if (!path || !existsSync(path)) {
    console.log(`${file}: skipped (${pkg} not installed in ${npmDir ?? "(no directory given)"})`);
    continue;
  }
  const { server, tools } = await listOver({ command: process.execPath, args: [path, ...args], env });
  write(file, `${pkg} (${server}), tools/list over stdio`, tools);
}

const [clientSide, serverSide] = memoryPair();
await zodServer().connect(toSdkTransport(serverSide));
const zod = await listOver(clientSide);
write("sdk-zod.json", `@modelcontextprotocol/sdk McpServer.registerTool with zod 4 schemas (the SDK's own JSON Schema conversion), tools/list`, zod.tools);

const [clientSide3, serverSide3] = memoryPair();
await zod3Server().connect(toSdkTransport(serverSide3));
const zod3 = await listOver(clientSide3);
write("sdk-zod3.json", "@modelcontextprotocol/sdk McpServer.registerTool with zod 3 schemas (zod/v3, converted by the SDK's zod-to-json-schema), tools/list", zod3.tools);
