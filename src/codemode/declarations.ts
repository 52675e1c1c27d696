/**
 * The `tools` API as TypeScript declarations: one object type per server, one async function per
 * tool. Argument types come from the input schema after our schema compiler has normalised it
 * (adapters/schema/compile.ts: references inlined, `allOf` merged, recursive references left in
 * `$defs`, which become named types here); result types from `outputSchema` when the tool has one.
 * Descriptions become JSDoc. Names that are not identifiers are quoted, so they stay reachable as
 * `tools["server"]["tool-name.v2"]`.
 */
import type { Tool } from "../client/types.js";
import { compileInputSchema, type JsonSchema } from "../adapters/schema.js";
import { isObject } from "../util/guards.js";

/** One server's tools as the code sees them: its name and each tool under its own (unqualified) name. */
export interface ServerTools {
  server: string;
  tools: Array<{ name: string; tool: Tool }>;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await".split(
    " ",
  ),
);
/** Nested deeper than this, a schema is typed `unknown`: the declarations stay small and finite. */
const MAX_DEPTH = 8;

export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) && !RESERVED.has(name) ? name : JSON.stringify(name);
}

export function declarationsOf(servers: readonly ServerTools[]): string {
  const aliases: string[] = [];
  const body: string[] = [];
  for (const { server, tools } of servers) {
    body.push(`  ${propertyKey(server)}: {`);
    for (const { name, tool } of tools) {
      const prefix = `${aliasBase(server)}_${aliasBase(name)}`;
      const input = new Printer(compileInputSchema(tool.inputSchema, "anthropic").schema ?? {}, `${prefix}_In`, aliases);
      const none = !isObject(input.root.properties) || Object.keys(input.root.properties).length === 0;
      const args = none ? "" : input.type(input.root, 2);
      const output = isObject(tool.outputSchema)
        ? new Printer(compileInputSchema(tool.outputSchema, "anthropic").schema ?? {}, `${prefix}_Out`, aliases)
        : undefined;
      const result = output ? output.type(output.root, 2) : "unknown";
      const optional = input.hasRequired(input.root) ? "" : "?";
      const doc = jsdoc(tool.description ?? tool.title, "    ");
      if (doc) body.push(doc);
      body.push(`    ${propertyKey(name)}(${none ? "" : `args${optional}: ${args}`}): Promise<${result}>;`);
    }
    body.push("  };");
  }
  const header =
    "/** Each function calls one MCP tool. It resolves to the tool's structured result when it has one, else its text; a tool error throws a ToolError. */";
  return [...aliases, header, "declare const tools: {", ...body, "};", ""].join("\n");
}

function aliasBase(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, "_");
  return cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
}

function jsdoc(text: unknown, indent: string): string | undefined {
  if (typeof text !== "string" || text.trim() === "") return undefined;
  const clean = text.trim().replace(/\*\//g, "*\\/");
  const lines = clean.split(/\r?\n/);
  if (lines.length === 1) return `${indent}/** ${clean} */`;
  return [`${indent}/**`, ...lines.map((line) => `${indent} * ${line}`.trimEnd()), `${indent} */`].join("\n");
}

class Printer {
  readonly root: JsonSchema;
  private readonly defs: Record<string, unknown>;
  private readonly named = new Map<string, string>();

  constructor(
    schema: JsonSchema,
    private readonly prefix: string,
    private readonly aliases: string[],
  ) {
    this.root = schema;
    this.defs = isObject(schema.$defs) ? schema.$defs : {};
  }

  hasRequired(schema: JsonSchema): boolean {
    return Array.isArray(schema.required) && schema.required.length > 0;
  }

  type(schema: unknown, depth: number): string {
    if (schema === true || schema === undefined) return "unknown";
    if (schema === false) return "never";
    if (!isObject(schema) || depth > MAX_DEPTH + 2) return "unknown";
    if (typeof schema.$ref === "string") return this.reference(schema.$ref);
    if (Object.hasOwn(schema, "const")) return literal(schema.const);
    if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(" | ") || "never";
    const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (union !== undefined) return unique(union.map((member) => this.type(member, depth))).join(" | ") || "never";
    const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : typeof schema.type === "string" ? [schema.type] : inferred(schema);
    if (types.length === 0) return "unknown";
    return unique(types.map((type) => this.single(String(type), schema, depth))).join(" | ");
  }

  private single(type: string, schema: JsonSchema, depth: number): string {
    switch (type) {
      case "string":
        return "string";
      case "number":
      case "integer":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array":
        return this.array(schema, depth);
      case "object":
        return this.object(schema, depth);
      default:
        return "unknown";
    }
  }

  private array(schema: JsonSchema, depth: number): string {
    if (Array.isArray(schema.prefixItems)) return `[${schema.prefixItems.map((item) => this.type(item, depth + 1)).join(", ")}]`;
    const item = this.type(schema.items, depth + 1);
    return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
  }

  private object(schema: JsonSchema, depth: number): string {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === "string") : []);
    const pad = "  ".repeat(depth + 1);
    const lines: string[] = [];
    for (const [key, value] of Object.entries(properties)) {
      const doc = isObject(value) ? jsdoc(describe(value), pad) : undefined;
      if (doc) lines.push(doc);
      lines.push(`${pad}${propertyKey(key)}${required.has(key) ? "" : "?"}: ${this.type(value, depth + 1)};`);
    }
    const extra = schema.additionalProperties;
    if (extra !== false && (lines.length === 0 || isObject(extra)))
      lines.push(`${pad}[key: string]: ${isObject(extra) ? this.type(extra, depth + 1) : "unknown"};`);
    if (lines.length === 0) return "{}";
    const inline = `{ ${lines.map((line) => line.trim()).join(" ")} }`;
    if (!inline.includes("\n") && !inline.includes("/**") && inline.length <= 100) return inline;
    return `{\n${lines.join("\n")}\n${"  ".repeat(depth)}}`;
  }

  /** A recursive reference the compiler kept in `$defs`: a named type, declared once. */
  private reference(ref: string): string {
    const key = ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
    if (key === undefined || !Object.hasOwn(this.defs, key)) return "unknown";
    let name = this.named.get(key);
    if (name === undefined) {
      name = `${this.prefix}_${aliasBase(key)}`;
      this.named.set(key, name);
      this.aliases.push(`type ${name} = ${this.type(this.defs[key], 0)};`);
    }
    return name;
  }
}

function describe(schema: JsonSchema): string | undefined {
  const text = typeof schema.description === "string" ? schema.description : undefined;
  const fallback = Object.hasOwn(schema, "default") ? `default: ${JSON.stringify(schema.default)}` : undefined;
  if (text !== undefined && fallback !== undefined && !text.includes("default")) return `${text} (${fallback})`;
  return text ?? fallback;
}

function inferred(schema: JsonSchema): string[] {
  if (isObject(schema.properties) || schema.additionalProperties !== undefined) return ["object"];
  if (schema.items !== undefined || schema.prefixItems !== undefined) return ["array"];
  return [];
}

function literal(value: unknown): string {
  return value === null || ["string", "number", "boolean"].includes(typeof value) ? JSON.stringify(value) : "unknown";
}

function unique(types: string[]): string[] {
  return [...new Set(types)];
}
