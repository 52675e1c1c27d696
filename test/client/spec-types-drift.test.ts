/**
 * types/mcp-spec.d.ts is a copy of the SDK's spec types that ships with the package (so the public .d.ts
 * never import the SDK, a devDependency). These checks fail when the SDK is updated and the copy is not:
 * run `node .ci/sync-mcp-spec-types.mjs`. The type-level half is enforced by `npm run typecheck`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as Sdk from "@modelcontextprotocol/sdk/spec.types.js";
import type * as Ours from "../../types/mcp-spec.js";
import type * as Public from "../../src/index.js";

describe("the shipped MCP spec types", () => {
  it("are the SDK's file, byte for byte after our two-line header", () => {
    const sdkPath = createRequire(import.meta.url)
      .resolve("@modelcontextprotocol/sdk/spec.types.js")
      .replace(/\.js$/, ".d.ts");
    const sdk = readFileSync(sdkPath, "utf8").replace(/\n\/\/# sourceMappingURL=.*$/, "\n");
    const ours = readFileSync(new URL("../../types/mcp-spec.d.ts", import.meta.url), "utf8");
    const [first, second, ...rest] = ours.split("\n");
    expect(first).toMatch(/^\/\/ Vendored from @modelcontextprotocol\/sdk/);
    expect(second).toMatch(/^\/\/ MIT License/);
    expect(rest.join("\n"), "types/mcp-spec.d.ts differs from the SDK's: run node .ci/sync-mcp-spec-types.mjs").toBe(sdk);
  });

  it("are the same types as the SDK's, for every one the public API names", () => {
    expectTypeOf<Ours.Tool>().toEqualTypeOf<Sdk.Tool>();
    expectTypeOf<Ours.CallToolResult>().toEqualTypeOf<Sdk.CallToolResult>();
    expectTypeOf<Ours.ListToolsResult>().toEqualTypeOf<Sdk.ListToolsResult>();
    expectTypeOf<Ours.Resource>().toEqualTypeOf<Sdk.Resource>();
    expectTypeOf<Ours.ResourceTemplate>().toEqualTypeOf<Sdk.ResourceTemplate>();
    expectTypeOf<Ours.ReadResourceResult>().toEqualTypeOf<Sdk.ReadResourceResult>();
    expectTypeOf<Ours.Prompt>().toEqualTypeOf<Sdk.Prompt>();
    expectTypeOf<Ours.GetPromptResult>().toEqualTypeOf<Sdk.GetPromptResult>();
    expectTypeOf<Ours.CompleteResult>().toEqualTypeOf<Sdk.CompleteResult>();
    expectTypeOf<Ours.ClientCapabilities>().toEqualTypeOf<Sdk.ClientCapabilities>();
    expectTypeOf<Ours.ServerCapabilities>().toEqualTypeOf<Sdk.ServerCapabilities>();
    expectTypeOf<Ours.Implementation>().toEqualTypeOf<Sdk.Implementation>();
    expectTypeOf<Ours.CreateMessageRequestParams>().toEqualTypeOf<Sdk.CreateMessageRequestParams>();
    expectTypeOf<Ours.CreateMessageResult>().toEqualTypeOf<Sdk.CreateMessageResult>();
    expectTypeOf<Ours.ElicitRequestParams>().toEqualTypeOf<Sdk.ElicitRequestParams>();
    expectTypeOf<Ours.ElicitResult>().toEqualTypeOf<Sdk.ElicitResult>();
    expectTypeOf<Ours.Root>().toEqualTypeOf<Sdk.Root>();
    expectTypeOf<Ours.ListRootsResult>().toEqualTypeOf<Sdk.ListRootsResult>();
    expectTypeOf<Ours.LoggingLevel>().toEqualTypeOf<Sdk.LoggingLevel>();
    expectTypeOf<Ours.PromptReference>().toEqualTypeOf<Sdk.PromptReference>();
    expectTypeOf<Ours.ResourceTemplateReference>().toEqualTypeOf<Sdk.ResourceTemplateReference>();
    // And the package's own names are these types, not `any`.
    expectTypeOf<Public.Tool>().toEqualTypeOf<Sdk.Tool>();
    expectTypeOf<Public.CallToolResult>().not.toBeAny();
  });
});
