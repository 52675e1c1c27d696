// Copies the MCP spec's TypeScript types from the official SDK (devDependency @modelcontextprotocol/sdk, MIT
// licence, Copyright (c) 2024 Anthropic, PBC) to types/mcp-spec.d.ts, which ships in the package: the public
// .d.ts files name these types (Tool, CallToolResult, ...), and a user without the SDK installed would otherwise
// get `any` for each. Run it after updating the SDK; test/client/spec-types-drift.test.ts fails until then.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const HEADER = [
  "// Vendored from @modelcontextprotocol/sdk (dist/esm/spec.types.d.ts) by .ci/sync-mcp-spec-types.mjs; do not edit.",
  "// MIT License, Copyright (c) 2024 Anthropic, PBC: https://github.com/modelcontextprotocol/typescript-sdk",
  "",
].join("\n");

/** The SDK's file, without its source map comment (the map is not shipped). */
function sdkSpecTypes() {
  const require = createRequire(import.meta.url);
  const path = require.resolve("@modelcontextprotocol/sdk/spec.types.js").replace(/\.js$/, ".d.ts");
  return readFileSync(path, "utf8").replace(/\n\/\/# sourceMappingURL=.*$/, "\n");
}

writeFileSync(new URL("../types/mcp-spec.d.ts", import.meta.url), HEADER + sdkSpecTypes());
console.log("wrote types/mcp-spec.d.ts");
