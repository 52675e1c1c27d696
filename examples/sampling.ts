/**
 * `npx tsx examples/sampling.ts`: the server asks the client's model for a completion
 * (`sampling/createMessage`). Here `onSampling` stands in for a model call; declaring it makes the client
 * announce the `sampling` capability, and server-everything then offers its `trigger-sampling-request` tool.
 */
import { connect } from "../src/index.js";
import { everythingServer } from "./everything.js";

const client = await connect(everythingServer, {
  onSampling: async (params, { signal }) => {
    // A message's content is one block or (2025-11-25) several.
    const blocks = params.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [m.content]));
    const question = blocks.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
    console.log(`server asks the model (max ${params.maxTokens} tokens): ${question}`);
    // A real client calls its LLM here, passing `signal` so a cancelled request stops the call.
    if (signal.aborted) throw new Error("cancelled");
    return { role: "assistant", model: "example-model", content: { type: "text", text: "Four." }, stopReason: "endTurn" };
  },
});

const result = await client.callTool("trigger-sampling-request", { prompt: "What is 2 + 2?", maxTokens: 50 });
for (const block of result.content) if (block.type === "text") console.log(`tool result: ${block.text}`);
await client.close();
