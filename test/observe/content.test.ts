/**
 * What the page may and may not carry: no secret of the config in any byte served (env, headers, URL
 * credentials, a server's stderr that printed one), and agent runs rendered as a conversation, with tool
 * content only when captureToolContent is on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { observe, runAgent, secretsOf, Switchboard, type AgentModel, type Observer } from "../../src/index.js";
import { loadConfig } from "../../src/switchboard/config.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { echoServer, fastRestart, node } from "../switchboard/board-helpers.js";
import { waitFor } from "../helpers/processes.js";
import { EventStream, text } from "./observe-helpers.js";

const ENV_SECRET = "env-secret-4f1b9c";
const HEADER_SECRET = "header-secret-77d2a1";
const QUERY_SECRET = "query-secret-0c3e55";
const PASSWORD_SECRET = "pass-secret-9a8b7c";
const ARG_SECRET = "arg-secret-5e6f7a";
const SECRETS = [ENV_SECRET, HEADER_SECRET, QUERY_SECRET, PASSWORD_SECRET, ARG_SECRET];

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  expect(liveProcessCount()).toBe(0);
});

async function everyByte(observer: Observer): Promise<string> {
  const page = new EventStream(observer.url);
  await page.until((s) => s.at > 0);
  const parts = await Promise.all(["/", "/snapshot.json", "/missing"].map((path) => text(observer.url, path)));
  // Two frames: the one on connect and a tick.
  await waitFor(() => page.snapshots.length >= 2, 5000);
  await page.close();
  return [...parts.map((p) => `${[...p.headers].join("\n")}\n${p.body}`), page.raw].join("\n");
}

describe("no secret reaches the page", () => {
  it("env, header, URL query and password values of the config, and a stderr that printed one, never appear in a byte served", async () => {
    const config = await loadConfig({
      mcpServers: {
        leaky: {
          command: node,
          // The exit message names the command line, so an argument's secret is in it.
          args: [echoServer, "--api-key", ARG_SECRET],
          // The server prints the secret to stderr; its exit message carries that stderr.
          env: { API_TOKEN: ENV_SECRET, ECHO_SERVER_STDERR: `my token is ${ENV_SECRET}` },
          restart: fastRestart,
        },
        remote: {
          url: `http://user:${PASSWORD_SECRET}@127.0.0.1:9/mcp?api_key=${QUERY_SECRET}`,
          headers: { Authorization: `Bearer ${HEADER_SECRET}` },
          restart: { maxRestarts: 0 },
        },
      },
    });
    const board = new Switchboard(config);
    cleanup.push(() => board.stop());
    const observer = await observe(board, { port: 0, redact: secretsOf(config), captureToolContent: true });
    cleanup.push(() => observer.close());
    await board.start();
    await board.callTool("leaky__echo", { text: `the argument has ${HEADER_SECRET}` });
    await board.callTool("leaky__crash").catch(() => {});
    await waitFor(() => board.status().leaky.restarts >= 1 && board.status().leaky.state === "up", 10_000);
    const served = await everyByte(observer);
    expect(served).toContain('"name":"leaky"');
    expect(served).toContain("exited with code 3");
    expect(served).toContain("[redacted]");
    for (const secret of SECRETS) expect(served).not.toContain(secret);
    for (const secret of SECRETS) expect(secretsOf(config)).toContain(secret);
  });

  it("without a redact list, an exit's stderr still stays off the page (only an error's first line is shown)", async () => {
    const board = new Switchboard({
      servers: { leaky: { command: node, args: [echoServer], env: { ECHO_SERVER_STDERR: `my token is ${ENV_SECRET}` }, restart: fastRestart } },
    });
    cleanup.push(() => board.stop());
    const observer = await observe(board, { port: 0 });
    cleanup.push(() => observer.close());
    await board.start();
    await board.callTool("leaky__crash").catch(() => {});
    await waitFor(() => observer.snapshot().servers[0].lastExit !== undefined, 10_000);
    expect(observer.snapshot().servers[0].lastExit!.reason).toMatch(/^MCP server ".*echo-server\.mjs" exited with code 3 \(its stderr is not shown here\)$/);
    expect(await everyByte(observer)).not.toContain(ENV_SECRET);
  });
});

/** A model that calls echo once, thinking first, then answers. */
const scripted: AgentModel = async (request) => {
  const answered = request.messages.some((m) => m.role === "tool");
  return answered
    ? { message: { role: "assistant", content: [{ type: "text", text: "The server said: secret sauce" }] } }
    : {
        message: {
          role: "assistant",
          content: [
            { type: "thinking", text: "I should ask the echo tool." },
            { type: "tool_use", id: "call_1", name: "echo__echo", input: { text: "secret sauce" } },
          ],
        },
      };
};

describe("agent runs", () => {
  async function runOnce(capture: boolean) {
    const board = new Switchboard({ servers: { echo: { command: node, args: [echoServer] } } });
    cleanup.push(() => board.stop());
    await board.start();
    const observer = await observe(board, { port: 0, captureToolContent: capture });
    cleanup.push(() => observer.close());
    const page = new EventStream(observer.url);
    cleanup.push(() => page.close());
    await page.until(() => true);
    const result = await runAgent({ model: scripted, host: board, messages: "Ask echo", events: observer.agentEvents("support bot") });
    expect(result.stopReason).toBe("end");
    return page.until((s) => s.runs[0]?.state === "done");
  }

  it("are shown as a conversation: text, thinking, tool_use, tool_result, live on the page", async () => {
    const seen = await runOnce(true);
    const run = seen.runs[0];
    expect(run).toMatchObject({ label: "support bot", state: "done", turns: 2 });
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(run.messages[1].content).toEqual([
      { type: "thinking", text: "I should ask the echo tool." },
      { type: "tool_use", id: "call_1", name: "echo__echo", input: { text: "secret sauce" } },
    ]);
    expect(run.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      toolUseId: "call_1",
      isError: false,
      content: [{ type: "text", text: "secret sauce" }],
    });
    expect(run.messages[3].content).toEqual([{ type: "text", text: "The server said: secret sauce" }]);
    // The run's tool call is a call of the board too.
    expect(seen.calls.map((c) => c.name)).toContain("echo__echo");
  });

  it("hide tool inputs and results unless captureToolContent is on", async () => {
    const seen = await runOnce(false);
    const run = seen.runs[0];
    expect(run.messages[1].content[1]).toEqual({ type: "tool_use", id: "call_1", name: "echo__echo", input: "(hidden: captureToolContent is off)" });
    expect(run.messages[2].content[0]).toMatchObject({ content: [{ type: "text", text: "(hidden: captureToolContent is off)" }] });
    expect(JSON.stringify(run.messages.slice(1, 3))).not.toContain("secret sauce");
  });

  it("a failed model call marks the run failed with its reason", async () => {
    const board = new Switchboard({ servers: {} });
    cleanup.push(() => board.stop());
    const observer = await observe(board, { port: 0 });
    cleanup.push(() => observer.close());
    await expect(
      runAgent({
        model: async () => {
          throw new Error("rate limited");
        },
        host: board,
        messages: "hi",
        events: observer.agentEvents(),
      }),
    ).rejects.toThrow();
    expect(observer.snapshot().runs[0]).toMatchObject({ label: "run 1", state: "failed", error: "rate limited" });
  });
});
