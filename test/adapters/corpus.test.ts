/**
 * The schema compiler against real tool schemas (test/adapters/corpus/*.json: server-everything, the
 * filesystem, GitHub, memory, sequential-thinking and Playwright servers, Pydantic/FastMCP output,
 * the SDK's zod conversions, schemas from issue reports). For every tool and every target:
 * - the converted schema compiles in Ajv (draft 2020-12) with no missing reference;
 * - the non-strict OpenAI and Anthropic forms are exact;
 * - values generated from the original schema, put in the provider's form, come back through the
 *   runners (`runOpenAIToolCall`, `runAnthropicToolUse`, `runGeminiFunctionCall`) meaning the same
 *   (compared with the original schema's defaults filled in); for an exact conversion every such value
 *   must also be valid against the converted schema;
 * - every strict schema is left unchanged by the `openai` package's own strict transform, and builds a
 *   LangChain `DynamicStructuredTool` (which validates input against it) and an AI SDK tool.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DynamicStructuredTool } from "@langchain/core/tools";
import { asSchema, jsonSchema, tool as aiTool } from "ai";
import { Ajv as Ajv07 } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { toStrictJsonSchema } from "openai/lib/transform";
import { describe, expect, it } from "vitest";
import {
  compileInputSchema,
  providerNames,
  runAnthropicToolUse,
  runGeminiFunctionCall,
  runOpenAIToolCall,
  type SchemaTarget,
  type Tool,
} from "../../src/index.js";
import { encodeArguments } from "../../src/adapters/schema/codec.js";
import { SchemaDocument, type JsonSchema } from "../../src/adapters/schema/document.js";
import { arbitraryFor } from "./helpers/arbitrary.js";

interface Entry extends Tool {
  file: string;
  source: string;
}

const dir = fileURLToPath(new URL("./corpus/", import.meta.url));
const corpus: Entry[] = readdirSync(dir)
  .filter((file) => file.endsWith(".json"))
  .sort()
  .flatMap((file) => {
    const { source, tools } = JSON.parse(readFileSync(dir + file, "utf8")) as { source: string; tools: Tool[] };
    return tools.map((tool) => ({ ...tool, file, source }));
  });

const TARGETS: SchemaTarget[] = ["openai", "openai-strict", "anthropic", "gemini"];
const ajv = () => new Ajv2020({ strict: false, validateFormats: false, allErrors: false });

function originalValidator(schema: JsonSchema, withDefaults: boolean) {
  const options = { strict: false, validateFormats: false, useDefaults: withDefaults };
  const draft07 = typeof schema.$schema === "string" && schema.$schema.includes("draft-07");
  return draft07 ? new Ajv07(options).compile(schema) : new Ajv2020(options).compile(schema);
}

/**
 * Gemini's `nullable: true` (OpenAPI 3.0) lets null through whatever the enum says; Ajv's reading of
 * it follows OpenAPI 3.0.3 and also wants null in the enum. Spelled as JSON Schema for Ajv.
 */
function geminiAsJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiAsJsonSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const { nullable, ...rest } = schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === "properties") out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, s]) => [name, geminiAsJsonSchema(s)]));
    else out[key] = key === "items" || key === "anyOf" ? geminiAsJsonSchema(value) : value;
  }
  return nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

/** Local references in a converted schema all point at `#` or at one of its own `$defs`. */
function danglingRefs(schema: JsonSchema): string[] {
  const defs = (schema.$defs ?? {}) as JsonSchema;
  const refs = [...JSON.stringify(schema).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]);
  return refs.filter((ref) => ref !== "#" && !(ref.startsWith("#/$defs/") && decodeURIComponent(ref.slice(8)) in defs));
}

describe("the tool schema corpus", () => {
  it("holds at least 40 real tool schemas, each naming its source", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    for (const entry of corpus) expect(entry.source.length).toBeGreaterThan(10);
    const text = JSON.stringify(corpus.map((entry) => entry.inputSchema));
    for (const feature of [
      '"$defs"',
      '"definitions"',
      '"allOf"',
      '"oneOf"',
      '"anyOf"',
      '"prefixItems"',
      '"#/properties/',
      '"format"',
      '"enum"',
      '"const"',
      '"null"',
    ])
      expect(text).toContain(feature);
  });

  it.each(corpus.map((entry) => [`${entry.file} ${entry.name}`, entry] as const))("%s", async (_label, entry) => {
    const tools = [entry as Tool];
    const original = entry.inputSchema as JsonSchema;
    const valid = originalValidator(original, false);
    const withDefaults = originalValidator(original, true);
    const meaning = (value: unknown) => {
      const copy = structuredClone(value);
      withDefaults(copy);
      return copy;
    };
    const compiled = Object.fromEntries(TARGETS.map((target) => [target, compileInputSchema(original, target)]));
    const converted: Partial<Record<SchemaTarget, (value: unknown) => boolean>> = {};
    for (const target of TARGETS) {
      const { schema } = compiled[target];
      if (schema === undefined) continue;
      expect(schema.type, target).toBe("object");
      expect(danglingRefs(schema), target).toEqual([]);
      converted[target] = ajv().compile(target === "gemini" ? (geminiAsJsonSchema(schema) as JsonSchema) : schema) as (value: unknown) => boolean;
    }
    expect(compiled.openai.losses).toEqual([]);
    expect(compiled.anthropic.losses).toEqual([]);

    const strict = compiled["openai-strict"];
    if (strict.withinLimits) {
      const schema = strict.schema!;
      expect(toStrictJsonSchema(structuredClone(schema) as never)).toEqual(schema);
      const lc = new DynamicStructuredTool({ name: "probe", description: "probe", schema, func: async (input) => JSON.stringify(input) });
      expect(lc.schema).toBe(schema);
      const sdkTool = aiTool({ description: "probe", inputSchema: jsonSchema(schema as never), execute: async () => "ok" });
      expect(asSchema(sdkTool.inputSchema).jsonSchema).toEqual(schema);
    }

    const seen: unknown[] = [];
    const host = {
      listTools: async () => tools,
      callTool: async (_name: string, args?: Record<string, unknown>) => {
        seen.push(args);
        return { content: [{ type: "text" as const, text: "ok" }] };
      },
    };
    const names = {
      openai: providerNames([entry.name], "openai").toProvider.get(entry.name)!,
      gemini: providerNames([entry.name], "gemini").toProvider.get(entry.name)!,
    };
    const through = async (target: SchemaTarget, args: unknown): Promise<unknown> => {
      seen.length = 0;
      if (target === "anthropic") await runAnthropicToolUse(host, { type: "tool_use", id: "t", name: names.openai, input: args });
      else if (target === "gemini") await runGeminiFunctionCall(host, { name: names.gemini, args: args as Record<string, unknown> });
      else await runOpenAIToolCall(host, { type: "function_call", call_id: "c", name: names.openai, arguments: JSON.stringify(args) });
      expect(seen, `${target} reached the tool`).toHaveLength(1);
      return seen[0];
    };

    await fc.assert(
      fc.asyncProperty(
        arbitraryFor(original).filter((value) => valid(value)),
        async (value) => {
          for (const target of TARGETS) {
            const { schema, losses } = compiled[target];
            if (schema === undefined) continue;
            const encoded = encodeArguments(new SchemaDocument(schema), value);
            const accepted = converted[target]!(encoded);
            if (losses.length === 0) expect(accepted, `${target}: ${JSON.stringify(encoded)}`).toBe(true);
            if (!accepted) continue;
            const back = await through(target, encoded);
            // What the tool receives is always valid for it; its meaning is the value's, except where
            // the conversion says an optional, nullable property can no longer be left out.
            expect(valid(back), `${target}: ${JSON.stringify(back)} is valid for the tool`).toBe(true);
            if (!losses.some((loss) => loss.includes("can no longer be left out"))) {
              expect(meaning(back), `${target}: ${JSON.stringify(encoded)}`).toEqual(meaning(value));
            }
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
