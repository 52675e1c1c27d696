/**
 * `npx tsx examples/agents/ai-sdk.ts`: the Vercel AI SDK's own loop (`generateText` with `stopWhen`)
 * over a Switchboard's tools (`mcp-switchboard/ai` in an installed package). The model is any AI SDK
 * model; here the OpenAI-compatible provider, reading OPENAI_API_KEY and OPENAI_BASE_URL.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";
import { toAISDKTools } from "../../src/agents/bridges/ai.js";
import { question, startBoard } from "./board.js";

const board = await startBoard();
try {
  const provider = createOpenAICompatible({
    name: "openai",
    baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    apiKey: process.env.OPENAI_API_KEY,
    includeUsage: true,
  });
  const result = await generateText({
    model: provider(process.env.OPENAI_MODEL ?? "gpt-4.1-mini"),
    tools: await toAISDKTools(board),
    stopWhen: stepCountIs(5),
    prompt: question,
  });
  for (const step of result.steps) {
    for (const call of step.toolCalls) console.log(`-> ${call.toolName}(${JSON.stringify(call.input)})`);
    for (const done of step.toolResults) console.log(`<- ${JSON.stringify((done.output as { content: unknown }).content)}`);
  }
  console.log(`answer: ${result.text}`);
  console.log(`steps: ${result.steps.length}, tokens: ${result.totalUsage.totalTokens}`);
} finally {
  await board.stop();
}
