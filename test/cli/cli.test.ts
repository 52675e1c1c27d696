/**
 * The mcp-switchboard command: tools, call, bench and demo against real stdio servers, with the exit
 * codes and messages a shell user relies on.
 */
import { describe, expect, it } from "vitest";
import { configFile, echoServer, exec, run } from "./run-cli.js";

const config = configFile({ echo: { command: process.execPath, args: [echoServer] } });

describe("mcp-switchboard", () => {
  it("tools: lists namespaced tools with their descriptions, or JSON", async () => {
    const text = await run(["tools", "--config", config]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^echo__echo\s+Returns its text\.$/m);
    expect(text.err).toMatch(/tools from 1 server/);
    const json = await run(["tools", "-c", config, "--json"]);
    expect(JSON.parse(json.out).map((t: { name: string }) => t.name)).toContain("echo__add");
  });

  it("call: prints the result and progress; exit 1 for a tool error", async () => {
    const sum = await run(["call", "echo__add", '{"a":2,"b":40}', "-c", config]);
    expect(sum).toMatchObject({ code: 0, out: "42" });
    const progress = await run(["call", "echo__progress", '{"steps":2,"delayMs":1}', "-c", config]);
    expect(progress.err).toMatch(/progress 1\/2[\s\S]*progress 2\/2/);
    const failed = await run(["call", "echo__fail", "-c", config]);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/always fails/);
  });

  it("--timeout bounds each call", async () => {
    // --timeout bounds the call only: the server's start (handshake included) has its start deadline, so
    // a loaded machine that takes over 300 ms to start the server no longer turns this into "is down".
    const slow = await run(["call", "echo__slow", '{"ms":5000}', "--timeout", "300", "-c", config]);
    expect(slow.err).not.toMatch(/server "echo" is/);
    expect(slow.code).toBe(1);
    expect(slow.err).toMatch(/RequestTimeoutError/);
  });

  it("a wrong command line exits 2 and says what is wrong; a failed call or config exits 1", async () => {
    const badJson = await run(["call", "echo__add", "{nope", "-c", config]);
    expect(badJson).toMatchObject({ code: 2 });
    expect(badJson.err).toMatch(/The arguments for echo__add are not valid JSON/);
    expect(badJson.err).toMatch(/mcp-switchboard --help/);
    expect(await run(["call", "echo__add", "[1]", "-c", config])).toMatchObject({ code: 2, err: expect.stringMatching(/must be a JSON object/) });
    expect(await run(["call", "-c", config])).toMatchObject({ code: 2, err: expect.stringMatching(/call needs a tool name/) });
    expect(await run(["bench", "echo__echo", "-n", "zero", "-c", config])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--requests takes a whole number above 0, got "zero"/),
    });
    expect(await run(["tools", "--frobnicate"])).toMatchObject({ code: 2, err: expect.stringMatching(/Unknown option '--frobnicate'/) });
    const unknown = await run(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/Unknown command "frobnicate"/);
    const missing = await run(["tools", "-c", `${config}.missing`]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/mcp\.json\.missing does not exist/);
    const noTool = await run(["call", "echo__nothing", "-c", config]);
    expect(noTool.code).toBe(1);
    expect(noTool.out + noTool.err).toMatch(/No tool named echo__nothing is available/);
    const noConfig = await run(["tools"]); // the repository has no mcp.json
    expect(noConfig.code).toBe(1);
    expect(noConfig.err).toMatch(/No mcp\.json in .*: pass --config FILE, or try `mcp-switchboard demo`/);
  });

  // One program start per test: each start compiles the CLI through tsx, seconds apiece on a loaded
  // machine, so four in one test could outrun a single test's limit.
  it("runs as a program: --version", () => {
    expect(exec("--version").out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("runs as a program: --help lists every command", () => {
    const help = exec("--help").out;
    for (const command of ["tools", "call", "bench", "resources", "read", "prompts", "prompt", "demo"])
      expect(help).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    expect(help).toMatch(/--server <name>/);
  });

  it("runs as a program: no command is a usage error (2)", () => {
    expect(exec().code).toBe(2);
  });

  it("runs as a program: a demo that needs no configuration", () => {
    const demo = exec("demo", "-n", "100");
    expect(demo.code).toBe(0);
    expect(demo.out).toMatch(/demo__progress/);
    expect(demo.out).toMatch(/^42$/m);
    expect(demo.err).toMatch(/progress 3\/3/);
    expect(demo.out).toMatch(/^demo\s+demo:\/\/readme\s+readme\s+text\/markdown/m);
    expect(demo.out).toMatch(/^Greet Ada in a friendly way\.$/m);
  });
});
