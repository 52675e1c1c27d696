/** The Switchboard the agent examples share: the bundled echo server (echo, add, ...) as "math". */
import { fileURLToPath } from "node:url";
import { Switchboard, type AgentResult } from "../../src/index.js";

export async function startBoard(): Promise<Switchboard> {
  const echoServer = fileURLToPath(new URL("../servers/echo-server.mjs", import.meta.url));
  const board = new Switchboard({ servers: { math: { command: process.execPath, args: [echoServer] } } });
  await board.start();
  return board;
}

export const question = "What is 17 + 25? Check it with the add tool, and echo the answer.";

/** Prints a run: each message's blocks, each tool call's server and time, the usage. */
export function printRun(result: AgentResult): void {
  for (const message of result.messages) {
    for (const block of message.content) {
      if (block.type === "text") console.log(`${message.role}: ${block.text}`);
      else if (block.type === "thinking") console.log(`${message.role} (thinking): ${block.text}`);
      else if (block.type === "tool_use") console.log(`${message.role} -> ${block.name}(${JSON.stringify(block.input)})`);
      else
        console.log(`${message.role} <- ${block.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ")}${block.isError ? " (error)" : ""}`);
    }
  }
  for (const step of result.steps) {
    for (const call of step.toolCalls)
      console.log(
        `  turn ${step.turn}: ${call.name} on ${call.server} (attempts: ${call.attempts.map((a) => a.server).join(" -> ")}) in ${call.durationMs.toFixed(1)} ms`,
      );
  }
  console.log(`stop: ${result.stopReason}, turns: ${result.turns}, usage: ${JSON.stringify(result.usage)}`);
}
