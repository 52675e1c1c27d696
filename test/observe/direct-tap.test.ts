/**
 * On the board's direct path (no hooks, fallbacks or limits) the observer's tap wraps the runtime's one
 * reaction (`CallTap.watch`, src/switchboard/server-runtime.ts `direct`) instead of adding a reaction of its own: each
 * call is recorded once, with its outcome, and the caller gets the very error it gets with no observer.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { observe, type Observer } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import type { SwitchboardHooks } from "../../src/switchboard/hooks.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach } from "../switchboard/board-helpers.js";

const board = boardsAfterEach();
let observer: Observer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await observer?.close();
  observer = undefined;
});

/** `ok` answers, `bad` answers with `isError: true`, `fail` answers with a JSON-RPC error. */
function server(): ScriptedServer {
  return new ScriptedServer()
    .on("tools/list", () => ({ tools: ["ok", "bad", "fail"].map((name) => ({ name, inputSchema: { type: "object" } })) }))
    .on("tools/call", (request: JsonRpcRequest, self) => {
      const name = (request.params as { name: string }).name;
      if (name === "fail") {
        self.send({ jsonrpc: "2.0", id: request.id, error: { code: -32000, message: "the tool broke" } });
        return "silent";
      }
      return { content: [{ type: "text", text: name }], ...(name === "bad" ? { isError: true } : {}) };
    });
}

async function started(hooks?: SwitchboardHooks) {
  const s = server();
  const b = board({ servers: { s: { transport: () => s.clientSide, protocol: "legacy" } }, ...(hooks ? { hooks } : {}) });
  await b.start();
  await b.listTools();
  return b;
}

const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );

describe("the tap on the direct path", () => {
  it("records each call once with its outcome, and the caller's error is unchanged", async () => {
    const b = await started();
    const unobserved = await failure(b.callTool("s__fail", {}));
    observer = await observe(b, { port: 0 });
    const tap = b.callTap!;
    const watch = vi.spyOn(tap, "watch");
    const called = vi.spyOn(tap, "called");

    expect((await b.callTool("s__ok", { a: 1 })).isError).toBeUndefined();
    expect((await b.callTool("s__bad", {})).isError).toBe(true);
    const observed = await failure(b.callTool("s__fail", {}));

    // The direct path, through the seam: no side reaction of the routed path's.
    expect(watch).toHaveBeenCalledTimes(3);
    expect(called).not.toHaveBeenCalled();
    // The error a caller gets: the same class and message, naming its server, as with no observer.
    expect(observed).toBeInstanceOf((unobserved as object).constructor);
    expect(observed).toMatchObject({ message: (unobserved as Error).message, server: "s" });
    expect((unobserved as { server?: string }).server).toBe("s");
    // The runtime's own reactions ran: nothing left in flight.
    expect(b.status().s.inFlight).toBe(0);

    const snapshot = observer.snapshot();
    expect(snapshot.calls.map((c) => [c.name, c.server, c.outcome, c.error])).toEqual([
      ["s__ok", "s", "ok", undefined],
      ["s__bad", "s", "error", undefined],
      ["s__fail", "s", "failed", (observed as Error).message],
    ]);
    // Arguments stay out unless captureToolContent is on.
    expect(snapshot.calls[0]?.args).toBeUndefined();
    const stats = snapshot.servers.find((s) => s.name === "s")!.stats;
    expect(stats.total).toBe(3);
    expect(stats.errors).toBe(2);
  });

  it("shows arguments with captureToolContent, and costs nothing once closed", async () => {
    const b = await started();
    observer = await observe(b, { port: 0, captureToolContent: true });
    await b.callTool("s__ok", { city: "Oslo" });
    expect(observer.snapshot().calls[0]?.args).toContain("Oslo");
    const tap = b.callTap!;
    const watch = vi.spyOn(tap, "watch");
    await observer.close();
    observer = undefined;
    expect(b.callTap).toBeUndefined();
    await b.callTool("s__ok", {});
    await expect(b.callTool("s__fail", {})).rejects.toMatchObject({ server: "s" });
    expect(watch).not.toHaveBeenCalled();
    expect(b.status().s.inFlight).toBe(0);
  });

  it("a routed call (a hook set) is recorded once, by the side reaction", async () => {
    const b = await started({ before: () => undefined });
    observer = await observe(b, { port: 0 });
    const watch = vi.spyOn(b.callTap!, "watch");
    await b.callTool("s__bad", {});
    await failure(b.callTool("s__fail", {}));
    expect(watch).not.toHaveBeenCalled();
    expect(observer.snapshot().calls.map((c) => [c.name, c.outcome])).toEqual([
      ["s__bad", "error"],
      ["s__fail", "failed"],
    ]);
  });
});
