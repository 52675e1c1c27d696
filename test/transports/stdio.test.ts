import { afterEach, describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import { ConnectionClosedError } from "../../src/jsonrpc/errors.js";
import { StdioTransport } from "../../src/transports/stdio.js";
import { minimalEnvironment } from "../../src/transports/stdio-env.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import type { TransportSink } from "../../src/transports/transport.js";
import { isAlive, waitFor } from "../helpers/processes.js";

const node = process.execPath;
const transports: StdioTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  expect(liveProcessCount()).toBe(0);
});

function collect() {
  const messages: JsonRpcMessage[] = [];
  const stderr: string[] = [];
  let closed: { error?: Error } | undefined;
  const sink: TransportSink = {
    message: (m) => messages.push(m),
    error: () => {},
    close: (error) => {
      closed = { error };
    },
    stderr: (text) => stderr.push(text),
  };
  return { sink, messages, stderr, closed: () => closed };
}

function open(args: string[], options: Partial<ConstructorParameters<typeof StdioTransport>[0]> = {}): StdioTransport {
  const transport = new StdioTransport({ command: node, args, ...options });
  transports.push(transport);
  return transport;
}

describe("StdioTransport", () => {
  it("starts the server with a minimal environment plus the entry's env", async () => {
    process.env.SWITCHBOARD_TEST_SECRET = "do-not-leak";
    const script = "process.stdout.write(JSON.stringify({jsonrpc:'2.0',method:'env',params:process.env})+'\\n')";
    const transport = open(["-e", script], { env: { GIVEN: "yes" } });
    const { sink, messages } = collect();
    await transport.start(sink);
    await waitFor(() => messages.length === 1);
    const env = (messages[0] as { params: Record<string, string> }).params;
    expect(env.GIVEN).toBe("yes");
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.SWITCHBOARD_TEST_SECRET).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(Object.keys(minimalEnvironment({}, { PATH: "/bin", AWS_SECRET: "x" }))).toEqual(["PATH"]);
    delete process.env.SWITCHBOARD_TEST_SECRET;
  });

  it("captures stderr as events and a bounded tail", async () => {
    const transport = open(["-e", "process.stderr.write('x'.repeat(5000) + '\\nlast line\\n'); setInterval(() => {}, 1000)"], { stderrTailChars: 100 });
    const { sink, stderr } = collect();
    await transport.start(sink);
    await waitFor(() => stderr.join("").includes("last line"));
    expect(transport.stderrTail).toBe("last line");
    expect(transport.stderrTail.length).toBeLessThanOrEqual(100);
  });

  it("reports an unexpected exit once, with the exit code and the stderr tail, after the last messages", async () => {
    const script = 'process.stdout.write(\'{"jsonrpc":"2.0","method":"bye"}\\n\'); process.stderr.write(\'fatal: no database\\n\'); process.exitCode = 7';
    const transport = open(["-e", script]);
    const { sink, messages, closed } = collect();
    await transport.start(sink);
    await waitFor(() => closed() !== undefined);
    expect(messages).toHaveLength(1);
    const error = closed()!.error as ConnectionClosedError;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.exitCode).toBe(7);
    expect(error.stderr).toBe("fatal: no database");
    expect(error.message).toMatch(/exited with code 7\. Last stderr:\nfatal: no database/);
    await expect(transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow(/not running/);
  });

  it("close(): ends stdin, then SIGTERM, then SIGKILL for a server that ignores both", async () => {
    const stubborn = open(
      [
        "-e",
        "process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000); process.stderr.write('handlers installed\\n')",
      ],
      {
        shutdown: { stdinCloseMs: 100, sigtermMs: 100 },
      },
    );
    const { sink, closed, stderr } = collect();
    await stubborn.start(sink);
    // Its SIGTERM handler must be in place before close(), or SIGTERM would simply kill it (a fixed
    // sleep here failed on a loaded machine).
    await waitFor(() => stderr.join("").includes("handlers installed"));
    const pid = stubborn.pid!;
    const started = Date.now();
    await stubborn.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(isAlive(pid)).toBe(false);
    expect(closed()).toEqual({ error: undefined });
    await stubborn.close(); // idempotent
  });

  it("close() of a polite server returns as soon as it exits on stdin close", async () => {
    const polite = open(["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"]);
    await polite.start(collect().sink);
    const started = Date.now();
    await polite.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("restart() replaces the process without closing the sink", async () => {
    const transport = open(["-e", "process.stdin.resume(); setInterval(() => {}, 1000)"]);
    const { sink, closed } = collect();
    await transport.start(sink);
    const first = transport.pid!;
    await transport.restart();
    expect(transport.pid).not.toBe(first);
    expect(isAlive(first)).toBe(false);
    expect(closed()).toBeUndefined();
    expect(liveProcessCount()).toBe(1);
  });
});
