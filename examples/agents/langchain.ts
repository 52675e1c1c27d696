/**
 * `npx tsx examples/agents/langchain.ts`: LangChain's agent (`createAgent`) over a Switchboard's tools
 * (`mcp-switchboard/langchain` in an installed package), with `ChatOpenAI` reading OPENAI_API_KEY and
 * OPENAI_BASE_URL.
 */
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, ToolMessage } from "langchain";
import { toLangChainTools } from "../../src/agents/bridges/langchain.js";
import { question, startBoard } from "./board.js";

const board = await startBoard();
try {
  const model = new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini", configuration: { baseURL: process.env.OPENAI_BASE_URL } });
  const agent = createAgent({ model, tools: await toLangChainTools(board) });
  const { messages } = await agent.invoke({ messages: [{ role: "user", content: question }] });
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) console.log(`<- ${message.name}: ${message.text} (${message.status})`);
    else if ("tool_calls" in message && Array.isArray(message.tool_calls))
      for (const call of message.tool_calls) console.log(`-> ${call.name}(${JSON.stringify(call.args)})`);
  }
  console.log(`answer: ${messages[messages.length - 1].text}`);
} finally {
  await board.stop();
}
