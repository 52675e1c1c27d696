/**
 * `npx tsx examples/agents/anthropic.ts`: an agent over a Switchboard with the official
 * `@anthropic-ai/sdk` client. The client reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL; ANTHROPIC_MODEL
 * picks the model. `approve` refuses every tool the server marks destructive.
 */
import Anthropic from "@anthropic-ai/sdk";
import { anthropicModel, runAgent } from "../../src/index.js";
import { printRun, question, startBoard } from "./board.js";

const board = await startBoard();
try {
  const model = anthropicModel(new Anthropic(), { model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5", max_tokens: 2048 });
  const result = await runAgent({
    model,
    host: board,
    messages: [
      { role: "system", content: [{ type: "text", text: "Use the tools to check your arithmetic." }] },
      { role: "user", content: [{ type: "text", text: question }] },
    ],
    approve: ({ annotations }) => (annotations?.destructiveHint ? { allow: false, reason: "destructive tools need a person" } : true),
  });
  printRun(result);
} finally {
  await board.stop();
}
