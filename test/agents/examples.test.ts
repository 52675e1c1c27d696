/**
 * The agent examples run end to end, each in its own process, against the scripted model server (their
 * clients read OPENAI_BASE_URL / ANTHROPIC_BASE_URL) and the bundled echo server over stdio, and print
 * the calls, the answers and the answer.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { agentFixtures } from "./helpers.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const fixtures = agentFixtures();

const script = [
  {
    text: "Let me check.",
    toolCalls: [
      { name: "math__add", arguments: { a: 17, b: 25 } },
      { name: "math__echo", arguments: { text: "42" } },
    ],
    usage: { input: 50, output: 10 },
  },
  { text: "17 + 25 = 42.", usage: { input: 80, output: 6 } },
];

async function example(name: string): Promise<string> {
  const server = await fixtures.modelServer(script);
  const env = {
    ...process.env,
    OPENAI_BASE_URL: server.openaiBaseURL,
    OPENAI_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    ANTHROPIC_API_KEY: "test",
  };
  const { stdout } = await run(process.execPath, ["--import", "tsx", `examples/agents/${name}.ts`], { cwd: root, env, timeout: 30_000 });
  expect(server.requests).toHaveLength(2);
  return stdout;
}

describe("agent examples", () => {
  it("openai.ts: runAgent with the openai client", async () => {
    const out = await example("openai");
    expect(out).toContain('assistant -> math__add({"a":17,"b":25})');
    expect(out).toContain("tool <- 42");
    expect(out).toContain("assistant: 17 + 25 = 42.");
    expect(out).toMatch(/turn 1: math__add on math \(attempts: math\) in \d+\.\d ms/);
    expect(out).toContain('stop: end, turns: 2, usage: {"inputTokens":130,"outputTokens":16,"totalTokens":146,"cacheReadTokens":0,"reasoningTokens":0}');
  });

  it("anthropic.ts: runAgent with the Anthropic client", async () => {
    const out = await example("anthropic");
    expect(out).toContain('assistant -> math__echo({"text":"42"})');
    expect(out).toContain("assistant: 17 + 25 = 42.");
    expect(out).toContain('stop: end, turns: 2, usage: {"inputTokens":130,"outputTokens":16,"cacheReadTokens":0,"cacheWriteTokens":0}');
  });

  it("ai-sdk.ts: generateText with toAISDKTools", async () => {
    const out = await example("ai-sdk");
    expect(out).toContain('-> math__add({"a":17,"b":25})');
    expect(out).toContain('<- [{"type":"text","text":"42"}]');
    expect(out).toContain("answer: 17 + 25 = 42.");
    expect(out).toContain("steps: 2, tokens: 146");
  });

  it("langchain.ts: createAgent with toLangChainTools", async () => {
    const out = await example("langchain");
    expect(out).toContain('-> math__add({"a":17,"b":25})');
    expect(out).toContain("<- math__add: 42 (success)");
    expect(out).toContain("answer: 17 + 25 = 42.");
  });
});
