/**
 * `npx tsx examples/elicitation.ts`: the server asks the user for input (`elicitation/create`). The
 * handler shows the form (here: prints it) and answers for the user. It fills in only `name`; the client
 * adds the schema's `default` of every other field the user left alone (MCP 2025-11-25, SEP-1034), so the
 * server sees "Favorite Integer: 42" although the handler never set it. URL-mode requests
 * (`params.mode === "url"`) come to the same handler: open `params.url` for the user, then answer.
 */
import { connect } from "../src/index.js";
import { everythingServer } from "./everything.js";

const client = await connect(everythingServer, {
  onElicitation: async (params) => {
    console.log(`server asks: ${params.message}`);
    if (params.mode === "url") {
      console.log(`  would open ${params.url}`);
      return { action: "accept" };
    }
    for (const [field, schema] of Object.entries(params.requestedSchema.properties)) {
      const fallback = "default" in schema ? ` (default ${JSON.stringify(schema.default)})` : "";
      console.log(`  ${field}: ${schema.type}${fallback}`);
    }
    return { action: "accept", content: { name: "Ada Lovelace" } };
  },
});

const result = await client.callTool("trigger-elicitation-request", {});
for (const block of result.content) if (block.type === "text") console.log(block.text);
await client.close();
