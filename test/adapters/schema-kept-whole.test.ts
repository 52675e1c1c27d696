/**
 * Schemas kept whole: strict "auto" takes recursive GraphQL-style schemas that strict mode
 * converts without changing what they mean, defaults reach the model whole, enum labels survive
 * (const-option titles, `enumNames`), and no label line is left empty. The corpus is
 * test/adapters/corpus/*.json; the properties run on generated schemas of the same shapes.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileInputSchema, decodeArguments, toAnthropicTools, toGeminiTools, toOpenAITools, type SchemaTarget, type Tool } from "../../src/index.js";
import { encodeArguments } from "../../src/adapters/schema/codec.js";
import { SchemaDocument, type JsonSchema } from "../../src/adapters/schema/document.js";
import { arbitraryFor } from "./helpers/arbitrary.js";

const dir = fileURLToPath(new URL("./corpus/", import.meta.url));
const corpus: Tool[] = readdirSync(dir)
  .filter((file) => file.endsWith(".json"))
  .flatMap((file) => (JSON.parse(readFileSync(dir + file, "utf8")) as { tools: Tool[] }).tools);
const named = (name: string) => corpus.find((tool) => tool.name === name)!;
const TARGETS: SchemaTarget[] = ["openai", "openai-strict", "anthropic", "gemini"];

/** Every description in a schema, at any depth. */
function descriptions(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(descriptions);
  if (typeof schema !== "object" || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === "description" && typeof value === "string" ? [value] : descriptions(value)));
}

const openAIStrict = (tool: Tool, strict: boolean | "auto") => toOpenAITools([tool], { strict })[0].function;

describe("strict: auto", () => {
  it("sends the Apollo MCP server's recursive GraphQL schema strict, as strict: true does", () => {
    const apollo = named("SearchBooks");
    expect(JSON.stringify(apollo.inputSchema)).toContain("#/definitions/BookFilter");
    const auto = openAIStrict(apollo, "auto");
    expect(auto.strict).toBe(true);
    expect(auto.parameters).toEqual(openAIStrict(apollo, true).parameters);
    expect((auto.parameters.$defs as JsonSchema).BookFilter).toBeDefined();
  });

  it("keeps a schema non-strict where null would stand in for a default the server applies", () => {
    // max_length: integer or null, default 5000: strict would send null, and the default would not apply.
    expect(openAIStrict(named("fetch_page"), "auto").strict).toBeUndefined();
    expect(openAIStrict(named("fetch_page"), true).strict).toBe(true);
  });
});

describe("defaults and other values reach the model whole", () => {
  it("keeps a long URL default in `default` where the provider takes it, else whole in the description", () => {
    const url = (named("fetch_page").inputSchema.properties as Record<string, JsonSchema>).url.default as string;
    expect(url.length).toBeGreaterThan(100);
    const anthropic = toAnthropicTools([named("fetch_page")])[0].input_schema.properties as Record<string, JsonSchema>;
    expect(anthropic.url.default).toBe(url);
    const strict = openAIStrict(named("fetch_page"), true).parameters.properties as Record<string, JsonSchema>;
    expect(strict.url.description).toContain(`default: ${JSON.stringify(url)}`.replace(/^d/, "D"));
    const gemini = toGeminiTools([named("fetch_page")])[0].parameters!.properties as Record<string, JsonSchema>;
    expect(gemini.url.description).toContain(JSON.stringify(url));
  });

  it("cuts nothing in any corpus schema, for any target", () => {
    for (const tool of corpus)
      for (const target of TARGETS)
        expect(JSON.stringify(compileInputSchema(tool.inputSchema, target).schema ?? {}), `${tool.name} ${target}`).not.toContain("…");
  });
});

describe("enum labels", () => {
  it("keeps the titles of const options for Anthropic, and puts them in the description where titles go", () => {
    const size = (tool: { input_schema: JsonSchema }) => (tool.input_schema.properties as Record<string, JsonSchema>).size;
    expect(size(toAnthropicTools([named("ask_preferences")])[0]).oneOf).toEqual([
      { type: "string", const: "s", title: "Small" },
      { type: "string", const: "m", title: "Medium" },
      { type: "string", const: "l", title: "Large" },
    ]);
    const strict = openAIStrict(named("ask_preferences"), true).parameters.properties as Record<string, JsonSchema>;
    expect(strict.size.description).toBe('T-shirt size. Values: "s" = Small, "m" = Medium, "l" = Large');
  });

  it("turns enumNames into a description for every target, leaving empty and repeated labels out", () => {
    for (const target of TARGETS) {
      const properties = compileInputSchema(named("ask_preferences").inputSchema, target).schema!.properties as Record<string, JsonSchema>;
      expect(properties.channel.description, target).toBe('Values: "email" = Email, "sms" = Text message, "push" = Push notification');
      expect(properties.frequency.description, target).toBeUndefined();
      expect(JSON.stringify(properties)).not.toContain("enumNames");
    }
  });

  it("drops the empty 'VALUE: ' lines Apollo writes for enum values without a description", () => {
    for (const target of TARGETS) {
      const text = descriptions(compileInputSchema(named("SearchBooks").inputSchema, target).schema);
      for (const line of text.flatMap((d) => d.split("\n"))) expect(line, target).not.toMatch(/^\s*[A-Z_]+:\s*$/);
      expect(text.join("\n"), target).toContain("TITLE: The book's title");
      for (const description of text) expect(description, target).not.toMatch(/Values:\s*$/);
    }
  });
});

// ---- Properties on generated schemas ------------------------------------------------------------

/** Leaves strict mode carries exactly (labels and Apollo's empty label lines included). */
const EXACT_LEAVES: JsonSchema[] = [
  { type: "string" },
  { type: "integer", minimum: 0 },
  { type: "boolean" },
  { type: "string", enum: ["ASC", "DESC"], description: "\n\nValues:\nASC: \nDESC: " },
  { type: "string", enum: ["r", "g"], enumNames: ["Red", ""] },
  { oneOf: [{ const: "a", title: "Alpha" }, { const: "b" }] },
];
/** Leaves whose strict form takes other values: a described bound, any value, a default null would replace. */
const LOSSY_LEAVES: JsonSchema[] = [{ type: "string", minLength: 2 }, {}, { anyOf: [{ type: "integer" }, { type: "null" }], default: 5 }];

const key = fc.stringMatching(/^[a-z][a-zA-Z]{0,7}$/);

/** Apollo-shaped schemas: a root object and a recursive definition behind nullable references. */
function recursiveSchemas(leaves: JsonSchema[]): fc.Arbitrary<JsonSchema> {
  const property = fc.constantFrom(...leaves).chain((l) => fc.constantFrom<JsonSchema>(l, { anyOf: [l, { type: "null" }] }, { type: "array", items: l }));
  // Some properties required, the object closed or not.
  const objectOf = (extra: JsonSchema) =>
    fc.tuple(fc.dictionary(key, property, { minKeys: 1, maxKeys: 4 }), fc.boolean(), fc.boolean()).map(([props, firstRequired, closed]) => ({
      type: "object",
      properties: { ...props, ...extra },
      ...(firstRequired ? { required: [Object.keys(props)[0]] } : {}),
      ...(closed ? { additionalProperties: false } : {}),
    }));
  return fc
    .tuple(
      objectOf({ filter: { anyOf: [{ $ref: "#/definitions/Node" }, { type: "null" }] } }),
      objectOf({ children: { anyOf: [{ type: "array", items: { $ref: "#/definitions/Node" } }, { type: "null" }] } }),
    )
    .map(([root, node]) => ({ ...root, definitions: { Node: node } }));
}

/** The same schema with every object closed: values of it are the ones a strict form can carry. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== "object" || schema === null) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === "enum" || k === "const" ? v : closed(v)]));
  return out.type === "object" && out.additionalProperties === undefined ? { ...out, additionalProperties: false } : out;
}

const ajv = () => new Ajv2020({ strict: false, validateFormats: false });

/**
 * The strict form takes the same values as the source: source values (with only the keys it names),
 * put in the strict form, are accepted and come back valid; and whatever the model may send under
 * strict mode reaches the tool as a value the source accepts.
 */
function expectSameValues(source: JsonSchema, strictSchema: JsonSchema): void {
  const sourceValid = ajv().compile(source);
  const strictValid = ajv().compile(strictSchema);
  const strictDoc = new SchemaDocument(strictSchema);
  fc.assert(
    fc.property(
      arbitraryFor(closed(source) as JsonSchema).filter((v) => sourceValid(v)),
      (value) => {
        const encoded = encodeArguments(strictDoc, value);
        expect(strictValid(encoded), JSON.stringify(encoded)).toBe(true);
        expect(sourceValid(decodeArguments(source, encoded))).toBe(true);
      },
    ),
    { numRuns: 8 },
  );
  fc.assert(
    fc.property(
      arbitraryFor(strictSchema).filter((v) => strictValid(v)),
      (sent) => {
        expect(sourceValid(decodeArguments(source, sent)), JSON.stringify(sent)).toBe(true);
      },
    ),
    { numRuns: 8 },
  );
}

const autoStrict = (source: JsonSchema) => openAIStrict({ name: "t", inputSchema: source as unknown as Tool["inputSchema"] }, "auto");

describe("properties of the converter", () => {
  it('"auto" makes every exactly convertible recursive schema strict, taking the same values as the source', () => {
    fc.assert(
      fc.property(recursiveSchemas(EXACT_LEAVES), (source) => {
        const { parameters, strict } = autoStrict(source);
        expect(strict).toBe(true);
        expectSameValues(source, parameters);
      }),
      { numRuns: 20 },
    );
  });

  it('"auto" is strict only where the strict form takes the same values as the source', () => {
    let strictCount = 0;
    fc.assert(
      fc.property(recursiveSchemas([...EXACT_LEAVES, ...LOSSY_LEAVES]), (source) => {
        const { parameters, strict } = autoStrict(source);
        if (strict !== true) return;
        strictCount++;
        expectSameValues(source, parameters);
      }),
      { numRuns: 20 },
    );
    expect(strictCount).toBeLessThan(20);
  });

  it("never truncates a default, whatever its length, for any target", () => {
    const longText = fc.string({ minLength: 60, maxLength: 400 });
    const defaulted = fc.oneof(
      longText.map((s) => ({ type: "string", default: s })),
      fc.webUrl({ withQueryParameters: true, withFragments: true }).map((u) => ({ type: "string", format: "uri", default: `${u}/${"segment/".repeat(12)}` })),
      fc.dictionary(key, longText, { minKeys: 1, maxKeys: 3 }).map((d) => ({ type: "object", additionalProperties: { type: "string" }, default: d })),
      fc.array(longText, { minLength: 1, maxLength: 3 }).map((a) => ({ type: "array", items: { type: "string" }, default: a })),
    );
    fc.assert(
      fc.property(fc.dictionary(key, defaulted, { minKeys: 1, maxKeys: 3 }), (props) => {
        const source = { type: "object", properties: props };
        for (const target of TARGETS) {
          const text = JSON.stringify(compileInputSchema(source, target).schema);
          expect(text).not.toContain("…");
          for (const schema of Object.values(props)) {
            // The value's JSON, escaped the way it sits inside the compiled schema's JSON (as `default` or in a description).
            const inDefault = JSON.stringify(schema.default);
            const inDescription = JSON.stringify(inDefault).slice(1, -1);
            expect(text.includes(inDefault) || text.includes(inDescription), `${target}: ${inDefault.slice(0, 40)}`).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
