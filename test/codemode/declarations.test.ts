/**
 * The declarations: argument types from the input schema through the schema compiler (`$ref`, unions,
 * enums, recursion, descriptions as JSDoc), result types from `outputSchema`, non-identifier names
 * quoted. They are real TypeScript: a program using them type-checks, and a wrong one does not. And
 * they are smaller than the JSON tool list they replace (tokens, gpt-tokenizer).
 */
import { encode } from "gpt-tokenizer";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { Tool } from "../../src/index.js";
import { declarationsOf } from "../../src/codemode/declarations.js";
import { codeMode } from "../../src/index.js";
import { codeBoards } from "./helpers.js";

const boards = codeBoards();

const TOOLS = [
  {
    name: "create_order",
    description: "Creates an order.\nReturns its id.",
    inputSchema: {
      type: "object",
      properties: {
        customer: { $ref: "#/$defs/Customer" },
        items: { type: "array", items: { $ref: "#/$defs/Item" }, description: "What to ship" },
        priority: { enum: ["low", "normal", "high"], default: "normal" },
        payment: { oneOf: [{ type: "object", properties: { card: { type: "string" } }, required: ["card"] }, { const: "invoice" }] },
        note: { type: ["string", "null"] },
        category: { $ref: "#/$defs/Category" },
      },
      required: ["customer", "items"],
      $defs: {
        Customer: { type: "object", properties: { id: { type: "string", description: "Customer id" } }, required: ["id"] },
        Item: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } }, required: ["sku", "qty"] },
        Category: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Category" } } },
          required: ["name"],
        },
      },
    },
    outputSchema: { type: "object", properties: { orderId: { type: "string" }, total: { type: "number" } }, required: ["orderId"] },
  },
  { name: "tool-name.v2", description: "Odd */ name", inputSchema: { type: "object" } },
  { name: "delete", inputSchema: { type: "object", properties: { force: { type: "boolean" } } } },
] as unknown as Tool[];

function typeErrors(declarations: string, program: string): string[] {
  const files: Record<string, string> = { "/tools.d.ts": declarations, "/use.ts": `export {};\nasync function main() {\n${program}\n}\nvoid main;` };
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (files[name] !== undefined ? ts.createSourceFile(name, files[name], version) : read(name, version));
  host.fileExists = (name) => files[name] !== undefined || ts.sys.fileExists(name);
  const compiled = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(compiled).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("declarations", () => {
  const text = declarationsOf([{ server: "shop", tools: TOOLS.map((tool) => ({ name: tool.name, tool })) }]);

  it("types arguments from the schema and results from outputSchema, with JSDoc", () => {
    expect(text).toContain("/** Customer id */");
    expect(text).toContain('priority?: "low" | "normal" | "high";');
    expect(text).toContain("note?: string | null;");
    expect(text).toMatch(/payment\?: \{ card: string; \} \| "invoice";/);
    expect(text).toMatch(/type Shop_Create_order_In_Category = \{/);
    expect(text).toContain("Promise<{ orderId: string; total?: number; }>");
    expect(text).toContain("   * Creates an order.\n     * Returns its id.".replace("   *", "    *").slice(1));
    expect(text).toContain('"tool-name.v2"(): Promise<unknown>;');
    expect(text).toContain("Odd *\\/ name");
    expect(text).toContain('"delete"(args?: { force?: boolean; }): Promise<unknown>;');
  });

  it("is TypeScript a program type-checks against, and a wrong program does not", () => {
    const good = `
      const order = await tools.shop.create_order({ customer: { id: "c1" }, items: [{ sku: "a", qty: 2 }], priority: "high", payment: "invoice",
        category: { name: "root", children: [{ name: "leaf" }] } });
      const id: string = order.orderId;
      await tools["shop"]["tool-name.v2"]();
      await tools.shop.delete({ force: true });
      void id;`;
    expect(typeErrors(text, good)).toEqual([]);
    const bad = `await tools.shop.create_order({ customer: { id: 1 }, items: [], priority: "urgent" });\nawait tools.shop.nope();`;
    const errors = typeErrors(text, bad);
    expect(errors.join("\n")).toMatch(/number.*string|not assignable/);
    expect(errors.join("\n")).toMatch(/nope/);
  });

  it("is smaller than the JSON tool list it replaces", async () => {
    const { board } = await boards();
    const declarations = await codeMode(board).declarations();
    const listed = JSON.stringify(
      (await board.listTools()).map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
    );
    const ratio = encode(declarations).length / encode(listed).length;
    expect(ratio).toBeLessThan(0.8);
  });
});
