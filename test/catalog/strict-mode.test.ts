/**
 * Strict mode, finished: `strict: "auto"` takes schemas silent about other keys and tools
 * without parameters as convertible, keeps explicitly open ones non-strict, and the labels of titled
 * enums and defaults reach the strict and Gemini forms in the description.
 */
import { describe, expect, it } from "vitest";
import { compileInputSchema, toGeminiTools, toOpenAITools, type Tool } from "../../src/index.js";

const tool = (name: string, inputSchema: Record<string, unknown>) => ({ name, inputSchema }) as Tool;

describe('strict: "auto"', () => {
  it("is strict for a schema silent about other keys and for tools without parameters; not for an explicitly open one", () => {
    const tools = [
      tool("silent", { type: "object", properties: { a: { type: "string" } }, required: ["a"] }),
      tool("none", { type: "object" }),
      tool("empty", {}),
      tool("nested", { type: "object", properties: { o: { type: "object", properties: { b: { type: "number" } } } } }),
      tool("open", { type: "object", properties: { a: { type: "string" } }, additionalProperties: true }),
      tool("map", { type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }),
    ];
    const strict = Object.fromEntries(toOpenAITools(tools, { api: "responses", strict: "auto" }).map((t) => [t.name, t.strict]));
    expect(strict).toEqual({ silent: true, none: true, empty: true, nested: true, open: false, map: false });
    const none = toOpenAITools(tools, { api: "responses", strict: "auto" }).find((t) => t.name === "none")!;
    expect(none.parameters).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false });
  });

  it("what reaches the server stays exact: the losses are still listed", () => {
    expect(compileInputSchema({ type: "object", properties: { a: { type: "string" } } }, "openai-strict").losses).toEqual([
      "(top level): an object open to other keys (additionalProperties unspecified) is closed",
    ]);
    expect(compileInputSchema({ type: "object", additionalProperties: false }, "openai-strict").losses).toEqual([]);
  });
});

describe("titled enums and defaults", () => {
  const schema = {
    type: "object",
    properties: {
      color: {
        type: "string",
        description: "The colour.",
        oneOf: [
          { const: "r", title: "Red" },
          { const: "g", title: "Green" },
        ],
        default: "r",
      },
      size: {
        anyOf: [
          { const: 1, title: "Small" },
          { const: 2, title: "Large" },
        ],
      },
      count: { type: "integer", default: 3 },
    },
    required: ["color"],
  };

  it("reach the strict form as an enum with labels and the default in the description, exactly", () => {
    const compiled = compileInputSchema(schema, "openai-strict");
    expect(compiled.losses).toEqual(["(top level): an object open to other keys (additionalProperties unspecified) is closed"]);
    const properties = compiled.schema!.properties as Record<string, Record<string, unknown>>;
    expect(properties.color).toEqual({ type: "string", enum: ["r", "g"], description: 'The colour. Values: "r" = Red, "g" = Green (default: "r")' });
    expect(properties.size.enum).toEqual([1, 2, null]);
    expect(properties.size.description).toBe("Values: 1 = Small, 2 = Large");
    expect(properties.count.description).toBe("Default: 3");
    const [strictTool] = toOpenAITools([tool("paint", schema)], { api: "responses", strict: "auto" });
    expect(strictTool.strict).toBe(true);
  });

  it("reach the Gemini form the same way", () => {
    const [declaration] = toGeminiTools([tool("paint", schema)]);
    const properties = (declaration.parameters as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(properties.color).toMatchObject({ enum: ["r", "g"], description: 'The colour. Values: "r" = Red, "g" = Green (default: "r")' });
    expect(properties.count.description).toBe("Default: 3");
  });

  it("stay a oneOf of consts where the target takes it (Anthropic, OpenAI non-strict)", () => {
    const properties = compileInputSchema(schema, "anthropic").schema!.properties as Record<string, Record<string, unknown>>;
    expect(properties.color.oneOf).toHaveLength(2);
    expect(properties.color.default).toBe("r");
  });
});
