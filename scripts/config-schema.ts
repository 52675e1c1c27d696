/**
 * Writes mcp.schema.json (the JSON Schema of mcp.json) from the field tables: `npm run config-schema`.
 * test/switchboard/config-schema.test.ts fails when the committed file is not what this writes.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { configSchema } from "../src/switchboard/config-schema.js";

export const SCHEMA_FILE = fileURLToPath(new URL("../mcp.schema.json", import.meta.url));

/** The file's text: the schema, formatted by Prettier with the repository's settings (so `prettier --check` passes). */
export async function renderConfigSchema(): Promise<string> {
  const options = (await resolveConfig(SCHEMA_FILE)) ?? {};
  return format(JSON.stringify(configSchema()), { ...options, parser: "json" });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, await renderConfigSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
