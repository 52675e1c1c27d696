/**
 * `npx tsx examples/agents/openai.ts`: an agent over a Switchboard with the official `openai` client
 * (Chat Completions). The client reads OPENAI_API_KEY and OPENAI_BASE_URL; OPENAI_MODEL picks the model.
 */
import OpenAI from "openai";
import { openAIChatModel, runAgent } from "../../src/index.js";
import { printRun, question, startBoard } from "./board.js";

const board = await startBoard();
try {
  const model = openAIChatModel(new OpenAI(), { model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" });
  const result = await runAgent({ model, host: board, messages: question, maxTurns: 5 });
  printRun(result);
} finally {
  await board.stop();
}
