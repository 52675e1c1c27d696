/**
 * Calls for a server that is restarting wait for it (ServerRuntime.whenUp, a ReadyGate): they run on
 * the new connection once it is up, leave when their signal aborts, and fail when the server stops.
 */
import { afterEach, describe, expect, it } from "vitest";
import { OverloadError, RequestCancelledError, TransportError } from "../../src/jsonrpc/errors.js";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { waitFor } from "../helpers/processes.js";

let board: Switchboard | undefined;
afterEach(async () => {
  await board?.stop();
  board = undefined;
});

/** A board with one server whose every (re)start is a fresh ScriptedServer, restarted after `backoffMs`. */
async function boardRestartingAfter(backoffMs: number, maxQueue?: number): Promise<{ generations: ScriptedServer[] }> {
  const generations: ScriptedServer[] = [];
  board = new Switchboard({
    servers: {
      s: {
        transport: () => {
          const server = new ScriptedServer();
          generations.push(server);
          return server.clientSide;
        },
        protocol: "legacy",
        ...(maxQueue !== undefined ? { maxQueue } : {}),
        restart: { maxRestarts: 5, withinMs: 60_000, backoff: { initialMs: backoffMs, maxMs: backoffMs, factor: 1, jitter: 0 } },
      },
    },
  });
  await board.start();
  await board.listTools();
  await generations[0].crash();
  await waitFor(() => board!.status().s.state !== "up");
  return { generations };
}

describe("calls while a server restarts", () => {
  it("wait for the server to come back up and run on the new connection", async () => {
    const { generations } = await boardRestartingAfter(50);
    const result = await board!.callTool("s__echo", { text: "after the restart" }, { timeoutMs: 10_000 });
    expect(result.content).toEqual([{ type: "text", text: "after the restart" }]);
    expect(generations).toHaveLength(2);
    expect(generations[1].messages("tools/call")).toHaveLength(1);
  });

  it("wait without a deadline when the call has none (timeoutMs: Infinity arms no timer that fires at once)", async () => {
    await boardRestartingAfter(100);
    const result = await board!.callTool("s__echo", { text: "no deadline" }, { timeoutMs: Infinity });
    expect(result.content).toEqual([{ type: "text", text: "no deadline" }]);
  });

  it("leave the wait when their signal aborts, and fail with the reason when the server is stopped", async () => {
    await boardRestartingAfter(60_000);
    const controller = new AbortController();
    const aborted = board!.callTool("s__echo", {}, { signal: controller.signal, timeoutMs: 120_000 }).catch((e) => e);
    const stopped = board!.callTool("s__echo", {}, { timeoutMs: 120_000 }).catch((e) => e);
    controller.abort();
    const cancelled = await aborted;
    expect(cancelled).toBeInstanceOf(RequestCancelledError);
    expect(cancelled.message).toMatch(/Cancelled while waiting for server "s" to come up/);
    await board!.stop();
    const failure = await stopped;
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure.message).toMatch(/server "s" was stopped/);
  });

  it("fail after the call's timeout with what the server is doing", async () => {
    await boardRestartingAfter(60_000);
    const error = await board!.callTool("s__echo", {}, { timeoutMs: 50 }).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toMatch(/server "s" did not come up within \d+ ms \(restarting\)/);
  });

  it("wait at most maxQueue at a time: a call storm for a restarting server fails the rest at once", async () => {
    await boardRestartingAfter(60_000, 5);
    const calls = Array.from({ length: 12 }, () => board!.callTool("s__echo", {}, { timeoutMs: 120_000 }).catch((e: unknown) => e));
    const refused = await Promise.all(calls.slice(5));
    for (const error of refused) {
      expect(error).toBeInstanceOf(OverloadError);
      expect((error as Error).message).toMatch(/5 requests are already waiting for server "s" to come up/);
    }
    await board!.stop();
    for (const error of await Promise.all(calls.slice(0, 5))) expect((error as Error).message).toMatch(/server "s" was stopped/);
  });
});
