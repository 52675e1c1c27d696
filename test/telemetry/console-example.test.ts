/** examples/telemetry/console-traces.ts runs and prints its spans: the tool calls as children of the step. */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));

describe("examples/telemetry/console-traces.ts", () => {
  it("prints the MCP spans, the tool calls under the agent step", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/telemetry/console-traces.ts"], { cwd: root, timeout: 20_000 });
    expect(stdout).toContain("name: 'initialize'");
    expect(stdout).toContain("name: 'tools/call echo'");
    expect(stdout).toContain("'mcp.method.name': 'tools/call'");
    expect(stdout).toContain("'gen_ai.tool.name': 'add'");
    const step = /traceId: '([0-9a-f]{32})',\s+parentSpanContext: undefined,\s+traceState: undefined,\s+name: 'agent step',\s+id: '([0-9a-f]{16})'/.exec(
      stdout,
    );
    expect(step).not.toBeNull();
    const [, traceId, stepId] = step!;
    const echo = new RegExp(
      `traceId: '${traceId}',\\s+parentSpanContext: \\{[^}]*spanId: '${stepId}'[^}]*\\},\\s+traceState: undefined,\\s+name: 'tools/call echo'`,
    ).exec(stdout);
    expect(echo).not.toBeNull();
  });
});
