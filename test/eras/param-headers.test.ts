/** x-mcp-header declaration rules and value mirroring (checklist 6), as pure functions. */
import { describe, expect, it } from "vitest";
import { headerDeclarations, paramHeaders } from "../../src/connection/eras/param-headers.js";

const prop = (type: string, header: string) => ({ type, "x-mcp-header": header });

describe("x-mcp-header", () => {
  it("checklist 6: declarations reachable through properties only, on string/integer/boolean, as unique tokens", () => {
    expect(
      headerDeclarations({ type: "object", properties: { r: prop("string", "Region"), n: { type: "object", properties: { d: prop("integer", "Days") } } } }),
    ).toEqual({
      ok: true,
      params: [
        { name: "Region", path: ["r"] },
        { name: "Days", path: ["n", "d"] },
      ],
    });
    expect(headerDeclarations({ type: "object" })).toEqual({ ok: true, params: [] });
    const invalid = [
      { properties: { a: prop("number", "A") } },
      { properties: { a: prop("string", "Bad Name") } },
      { properties: { a: { anyOf: [prop("string", "A")] } } },
      { properties: { a: { type: "array", items: prop("string", "A") } } },
      { $defs: { x: prop("string", "A") }, properties: { a: { $ref: "#/$defs/x" } } },
      { properties: { a: prop("string", "Same"), b: prop("string", "same") } },
      { type: "string", "x-mcp-header": "Root" },
    ];
    for (const schema of invalid) expect(headerDeclarations(schema).ok).toBe(false);
  });

  it("checklist 6: values are stringified (string as is, integer in decimal, boolean true/false); absent or null send nothing", () => {
    const params = [
      { name: "Region", path: ["r"] },
      { name: "Days", path: ["n", "d"] },
      { name: "Fast", path: ["f"] },
      { name: "Gone", path: ["g"] },
      { name: "Null", path: ["z"] },
    ];
    const headers: Record<string, string> = {};
    paramHeaders(params, { r: "eu-west", n: { d: 7 }, f: true, z: null }, headers);
    expect(headers).toEqual({ "mcp-param-region": "eu-west", "mcp-param-days": "7", "mcp-param-fast": "true" });
    const unsafe: Record<string, string> = {};
    paramHeaders([{ name: "Big", path: ["b"] }], { b: 2 ** 60 }, unsafe);
    expect(unsafe).toEqual({}); // outside ±(2^53−1): not mirrored; the server validates the argument
  });
});
