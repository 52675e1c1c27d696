/**
 * What the code-mode tests share: a Switchboard of in-process MCP servers on the official SDK's
 * McpServer over our memory transport (no processes), with tools that answer, fail, wait (honouring
 * cancellation) and carry output schemas. Boards are stopped after each test.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach } from "vitest";
import { z } from "zod";
import { memoryPair, Switchboard, type SwitchboardInit } from "../../src/index.js";
import { toSdkTransport } from "../helpers/sdk-bridge.js";

export interface Seen {
  /** Every call a server received, as `server.tool`. */
  calls: string[];
  /** Calls whose handler saw its cancellation signal fire. */
  cancelled: string[];
  /** Calls running right now, and the most at once. */
  running: number;
  peak: number;
}

export const CUSTOMERS = Array.from({ length: 20 }, (_, i) => ({
  id: `c${i + 1}`,
  name: `Customer ${i + 1}`,
  region: ["north", "south", "east", "west"][i % 4]!,
  revenue: 1000 + i * 137,
  notes: `Long free-text account history for customer ${i + 1}: renewals, contacts, support tickets and remarks. `.repeat(6),
}));

function crmServer(seen: Seen): McpServer {
  const server = new McpServer({ name: "crm", version: "1.0.0" });
  server.registerTool(
    "get_customer",
    {
      description: "One customer record by id.",
      inputSchema: { id: z.string().describe("Customer id, e.g. c7") },
      outputSchema: { id: z.string(), name: z.string(), region: z.enum(["north", "south", "east", "west"]), revenue: z.number(), notes: z.string() },
    },
    async ({ id }) => {
      seen.calls.push("crm.get_customer");
      const customer = CUSTOMERS.find((c) => c.id === id);
      if (customer === undefined) return { isError: true, content: [{ type: "text", text: `no customer ${id}` }] };
      return { content: [{ type: "text", text: JSON.stringify(customer) }], structuredContent: customer };
    },
  );
  server.registerTool("list_ids", { description: "Every customer id." }, async () => {
    seen.calls.push("crm.list_ids");
    return { content: [{ type: "text", text: JSON.stringify(CUSTOMERS.map((c) => c.id)) }] };
  });
  return server;
}

function mathServer(seen: Seen): McpServer {
  const server = new McpServer({ name: "math", version: "1.0.0" });
  server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    seen.calls.push("math.add");
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  server.registerTool("fail", { description: "Always an error result." }, async () => {
    seen.calls.push("math.fail");
    return { isError: true, content: [{ type: "text", text: "this tool always fails" }] };
  });
  server.registerTool("slow", { description: "Waits ms, honouring cancellation.", inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    seen.calls.push("math.slow");
    seen.running++;
    seen.peak = Math.max(seen.peak, seen.running);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          seen.cancelled.push("math.slow");
          reject(new Error("cancelled"));
        });
      });
    } finally {
      seen.running--;
    }
    return { content: [{ type: "text", text: `waited ${ms}` }] };
  });
  server.registerTool("tool-name.v2", { description: "A name that is not an identifier." }, async () => {
    seen.calls.push("math.tool-name.v2");
    return { content: [{ type: "text", text: "v2" }] };
  });
  return server;
}

const FACTORIES = { crm: crmServer, math: mathServer };

export interface CodeBoard {
  board: Switchboard;
  seen: Seen;
}

/** Boards started in a test are stopped after it. */
export function codeBoards(): (init?: Partial<SwitchboardInit>, entries?: Partial<Record<keyof typeof FACTORIES, Record<string, unknown>>>) => Promise<CodeBoard> {
  let boards: Switchboard[] = [];
  afterEach(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    boards = [];
  });
  return async (init = {}, entries = {}) => {
    const seen: Seen = { calls: [], cancelled: [], running: 0, peak: 0 };
    const servers: SwitchboardInit["servers"] = {};
    for (const [name, factory] of Object.entries(FACTORIES)) {
      servers[name] = {
        ...entries[name as keyof typeof FACTORIES],
        transport: () => {
          const [clientSide, serverSide] = memoryPair();
          void factory(seen).connect(toSdkTransport(serverSide));
          return clientSide;
        },
      };
    }
    const board = new Switchboard({ client: { protocol: "legacy" }, ...init, servers: { ...servers, ...init.servers } });
    boards.push(board);
    await board.start();
    await board.listTools();
    return { board, seen };
  };
}
