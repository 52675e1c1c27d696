/**
 * The schema compiler rule by rule, on small schemas shaped like what servers send: references,
 * recursion, allOf, oneOf, strict mode's nullable optionals, Gemini's subset, described constraints,
 * the top level, limits, and the runners' way back.
 */
import { describe, expect, it } from "vitest";
import {
  compileInputSchema,
  decodeArguments,
  normaliseInputSchema,
  runOpenAIToolCall,
  toAnthropicTools,
  toGeminiTools,
  toOpenAITools,
  type Tool,
} from "../../src/index.js";

const pydanticEvent = {
  $defs: {
    Attendee: {
      properties: {
        email: { format: "email", title: "Email", type: "string" },
        name: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Name" },
      },
      required: ["email"],
      title: "Attendee",
      type: "object",
    },
  },
  properties: {
    title: { maxLength: 200, title: "Title", type: "string" },
    attendees: { default: [], items: { $ref: "#/$defs/Attendee" }, title: "Attendees", type: "array" },
  },
  required: ["title"],
  title: "create_eventArguments",
  type: "object",
};

const tree = {
  $defs: {
    Node: {
      type: "object",
      properties: { title: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["title"],
      additionalProperties: false,
    },
  },
  type: "object",
  properties: { root: { $ref: "#/$defs/Node" } },
  required: ["root"],
  additionalProperties: false,
};

describe("references", () => {
  it("inlines $defs, drops titles and $schema, keeps what each target takes", () => {
    expect(compileInputSchema(pydanticEvent, "anthropic")).toEqual({
      schema: {
        type: "object",
        properties: {
          title: { type: "string", maxLength: 200 },
          attendees: {
            type: "array",
            items: {
              type: "object",
              properties: { email: { type: "string", format: "email" }, name: { type: ["string", "null"], default: null } },
              required: ["email"],
            },
            default: [],
          },
        },
        required: ["title"],
      },
      losses: [],
      withinLimits: true,
    });
    expect(compileInputSchema(pydanticEvent, "gemini").schema).toEqual({
      type: "object",
      properties: {
        title: { type: "string", maxLength: 200 },
        attendees: {
          type: "array",
          description: "Default: []",
          items: {
            type: "object",
            properties: { email: { type: "string", description: "Format: email" }, name: { type: "string", nullable: true } },
            required: ["email"],
            propertyOrdering: ["email", "name"],
          },
        },
      },
      required: ["title"],
      propertyOrdering: ["title", "attendees"],
    });
  });

  it("keeps a recursive definition in $defs where the target takes it, and unrolls it for Gemini", () => {
    expect(compileInputSchema(tree, "openai").schema).toEqual({ ...tree, $defs: tree.$defs });
    const strict = compileInputSchema(tree, "openai-strict");
    expect(strict.losses).toEqual([]);
    expect(strict.schema!.$defs).toEqual({
      Node: {
        type: "object",
        properties: { title: { type: "string" }, children: { type: ["array", "null"], items: { $ref: "#/$defs/Node" } } },
        required: ["title", "children"],
        additionalProperties: false,
      },
    });
    const gemini = compileInputSchema(tree, "gemini");
    expect(JSON.stringify(gemini.schema)).not.toContain("$ref");
    expect(gemini.losses).toEqual([".root.children[].children[].children[]: a nested Node is taken as JSON text"]);
  });

  it("resolves draft-07 definitions and zod's #/properties/... pointers; an unresolvable one lets any value through, said so", () => {
    const schema = {
      type: "object",
      properties: {
        subtotal: { type: "object", properties: { amount: { type: "number" } } },
        total: { $ref: "#/properties/subtotal" },
        other: { $ref: "https://example.com/x.json" },
      },
    };
    const out = compileInputSchema(schema, "anthropic");
    expect((out.schema!.properties as Record<string, unknown>).total).toEqual({ type: "object", properties: { amount: { type: "number" } } });
    expect((out.schema!.properties as Record<string, unknown>).other).toEqual({ description: "Schema https://example.com/x.json not available" });
    expect(out.losses).toEqual([".other: the reference https://example.com/x.json cannot be resolved here, so any value is let through"]);
  });
});

describe("composition", () => {
  it("merges allOf into one object", () => {
    const schema = {
      type: "object",
      allOf: [{ $ref: "#/$defs/Base" }, { type: "object", properties: { title: { type: "string" } } }],
      $defs: { Base: { type: "object", properties: { identifier: { type: "string" } }, required: ["identifier"] } },
    };
    expect(normaliseInputSchema(schema)).toEqual({
      type: "object",
      properties: { identifier: { type: "string" }, title: { type: "string" } },
      required: ["identifier"],
    });
  });

  it("turns oneOf into anyOf where the target lacks it, and counts it a loss only when alternatives overlap", () => {
    const tagged = {
      type: "object",
      properties: {
        to: {
          oneOf: [
            { type: "object", properties: { type: { const: "user" }, id: { type: "string" } }, required: ["type", "id"], additionalProperties: false },
            { type: "object", properties: { type: { const: "channel" } }, required: ["type"], additionalProperties: false },
          ],
        },
      },
      required: ["to"],
      additionalProperties: false,
    };
    expect((compileInputSchema(tagged, "anthropic").schema!.properties as Record<string, { oneOf?: unknown }>).to.oneOf).toHaveLength(2);
    const strict = compileInputSchema(tagged, "openai-strict");
    expect(strict.losses).toEqual([]);
    expect((strict.schema!.properties as Record<string, { anyOf?: Array<Record<string, unknown>> }>).to.anyOf![0].properties).toEqual({
      type: { type: "string", enum: ["user"] },
      id: { type: "string" },
    });
    const overlapping = {
      type: "object",
      properties: { v: { oneOf: [{ type: "number" }, { type: "integer" }] } },
      additionalProperties: false,
      required: ["v"],
    };
    expect(compileInputSchema(overlapping, "gemini").losses).toEqual([
      ".v: oneOf is offered as anyOf (its alternatives overlap, so a value may now match more than one)",
    ]);
  });

  it("offers top-level alternatives as one object with every property, and says so", () => {
    const out = compileInputSchema(
      {
        anyOf: [
          { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        ],
      },
      "anthropic",
    );
    expect(out.schema).toEqual({
      type: "object",
      description: "Give the properties of one of: {id} or {name}.",
      properties: { id: { type: "string" }, name: { type: "string" } },
    });
    expect(out.losses[0]).toMatch(/anyOf of 2 alternatives is offered as one object/);
  });
});

describe("OpenAI strict mode", () => {
  it("requires every property, makes optional ones nullable, moves defaults and refused keywords into descriptions", () => {
    const schema = {
      type: "object",
      properties: { url: { type: "string", format: "uri", minLength: 1 }, max_length: { type: "integer", default: 5000, exclusiveMinimum: 0 } },
      required: ["url"],
      additionalProperties: false,
    };
    const out = compileInputSchema(schema, "openai-strict");
    expect(out.schema).toEqual({
      type: "object",
      properties: {
        url: { type: "string", description: "Format: uri; at least 1 character" },
        max_length: { type: ["integer", "null"], description: "Default: 5000", exclusiveMinimum: 0 },
      },
      required: ["url", "max_length"],
      additionalProperties: false,
    });
    expect(out.losses).toEqual([".url: minLength 1 is only described"]);
    expect(decodeArguments(schema, { url: "https://example.com", max_length: null })).toEqual({ url: "https://example.com" });
  });

  it("keeps Pydantic's `x: T | None = None` exact: null already means the default", () => {
    const schema = { type: "object", properties: { base: { anyOf: [{ type: "string" }, { type: "null" }], default: null } }, additionalProperties: false };
    const out = compileInputSchema(schema, "openai-strict");
    expect(out).toMatchObject({ losses: [], schema: { properties: { base: { type: ["string", "null"] } }, required: ["base"] } });
    expect(decodeArguments(schema, { base: null })).toEqual({ base: null });
  });

  it("keeps an argument key named __proto__ (an own key in parsed JSON), found by the corpus property test", () => {
    const schema = { type: "object", properties: { value: { type: "object", additionalProperties: { type: "string" } } } };
    const args = JSON.parse('{"value":{"__proto__":"x","a":"b"}}') as Record<string, Record<string, unknown>>;
    const back = decodeArguments(schema, args) as Record<string, Record<string, unknown>>;
    expect(Object.keys(back.value)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(back.value, "__proto__")?.value).toBe("x");
    expect(Object.getPrototypeOf(back.value)).toBe(Object.prototype);
  });

  it("takes a map as JSON text, and the runner parses it back", async () => {
    const tool = {
      name: "set_labels",
      inputSchema: {
        type: "object",
        properties: { labels: { type: "object", additionalProperties: { type: "string" } } },
        required: ["labels"],
        additionalProperties: false,
      },
    } as Tool;
    const [converted] = toOpenAITools([tool], { api: "responses", strict: true });
    expect(converted).toMatchObject({
      strict: true,
      parameters: { properties: { labels: { type: "string", description: "An object whose values are string, written as JSON text" } } },
    });
    const calls: unknown[] = [];
    const host = { listTools: async () => [tool], callTool: async (_: string, args?: Record<string, unknown>) => (calls.push(args), { content: [] }) };
    await runOpenAIToolCall(host, { type: "function_call", call_id: "c", name: "set_labels", arguments: JSON.stringify({ labels: '{"team":"core"}' }) });
    expect(calls).toEqual([{ labels: { team: "core" } }]);
  });

  it('strict: "auto" is strict only where the conversion is exact; true is strict within the limits', () => {
    const closed = { name: "closed", inputSchema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false } } as Tool;
    const open: Tool = { name: "open", inputSchema: { type: "object", properties: { a: { type: "string" } } } };
    const huge = {
      name: "huge",
      inputSchema: {
        type: "object",
        properties: { a: { type: "string", enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } },
        additionalProperties: false,
      },
    } as Tool;
    const tools = [open, huge, closed];
    const strictness = (list: Array<{ name: string; strict: boolean }>) => Object.fromEntries(list.map((t) => [t.name, t.strict]));
    // A schema that does not mention additionalProperties is closed without loss of anything the model knows.
    expect(strictness(toOpenAITools(tools, { api: "responses", strict: "auto" }))).toEqual({ closed: true, open: true, huge: false });
    expect(strictness(toOpenAITools(tools, { api: "responses", strict: true }))).toEqual({ closed: true, open: true, huge: false });
    expect(strictness(toOpenAITools(tools, { api: "responses" }))).toEqual({ closed: false, open: false, huge: false });
    expect(toOpenAITools(tools, { strict: "auto" }).map((t) => [t.function.name, t.function.strict])).toEqual([
      ["closed", true],
      ["huge", undefined],
      ["open", true],
    ]);
  });
});

describe("Gemini", () => {
  it("uses its subset: nullable, string enums, its formats, no additionalProperties, no parameters for a tool without any", () => {
    const schema = {
      type: "object",
      properties: { level: { type: "integer", enum: [1, 2, 3] }, when: { type: ["string", "null"], format: "date-time" }, kind: { const: "x" } },
      additionalProperties: false,
    };
    const out = compileInputSchema(schema, "gemini");
    expect(out.schema).toEqual({
      type: "object",
      properties: {
        level: { type: "integer", description: "One of 1, 2, 3" },
        when: { type: "string", format: "date-time", nullable: true },
        kind: { type: "string", enum: ["x"] },
      },
      propertyOrdering: ["level", "when", "kind"],
    });
    expect(out.losses).toEqual([".level: enum [1,2,3] is only described"]);
    expect(toGeminiTools([{ name: "ping", description: "Pings.", inputSchema: { type: "object", properties: {} } }])).toEqual([
      { name: "ping", description: "Pings." },
    ]);
  });
});

describe("per tool list", () => {
  it("converts once per list and target, in name order, with cache_control on the last tool when asked", () => {
    const tools: Tool[] = [
      { name: "zeta", inputSchema: { type: "object" } },
      { name: "alpha", inputSchema: { type: "object" } },
    ];
    const first = toAnthropicTools(tools, { cacheControl: true });
    const second = toAnthropicTools(tools, { cacheControl: true });
    expect(first).not.toBe(second);
    expect(first[0]).toBe(second[0]);
    expect(first.map((t) => t.name)).toEqual(["alpha", "zeta"]);
    expect(first[1].cache_control).toEqual({ type: "ephemeral" });
    expect(first[0].cache_control).toBeUndefined();
    expect(compileInputSchema(tools[0].inputSchema, "gemini")).toBe(compileInputSchema(tools[0].inputSchema, "gemini"));
  });
});
