/**
 * A call with nothing to decide (no hooks; the server up, without fallbacks, limit or open circuit)
 * goes straight to the client (switchboard.ts, `ServerRuntime.direct`). It must still do what the
 * router does around a call: count it in flight, feed the circuit breaker its outcome (successes too),
 * name the server on errors, never throw synchronously, and leave cancelled calls to the router.
 */
import { describe, expect, it } from "vitest";
import { CircuitOpenError } from "../../src/supervisor/circuit-breaker.js";
import { RequestCancelledError, RequestTimeoutError, TransportError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach } from "./board-helpers.js";

const board = boardsAfterEach();

/** A scripted server whose `slow` tool never answers and whose `echo` answers at once. */
function server(): ScriptedServer {
  return new ScriptedServer()
    .on("tools/list", () => ({
      tools: [
        { name: "echo", inputSchema: { type: "object" } },
        { name: "slow", inputSchema: { type: "object" } },
      ],
    }))
    .on("tools/call", (request) => ((request.params as { name: string }).name === "slow" ? "silent" : { content: [{ type: "text", text: "ok" }] }));
}

describe("Switchboard direct path", () => {
  it("counts a direct call in flight until it settles", async () => {
    const s = server();
    const b = board({ servers: { s: { transport: () => s.clientSide, protocol: "legacy" } } });
    await b.start();
    await b.listTools();
    const slow = b.callTool("s__slow", {}, { timeoutMs: 200 }).catch((e: unknown) => e);
    const fast = b.callTool("s__echo", {});
    expect(b.status().s.inFlight).toBe(2);
    expect((await fast).content).toEqual([{ type: "text", text: "ok" }]);
    expect(b.status().s.inFlight).toBe(1);
    expect(await slow).toBeInstanceOf(RequestTimeoutError);
    expect(b.status().s.inFlight).toBe(0);
  });

  it("feeds the breaker: failures open the circuit, a success in between resets the count", async () => {
    const s = server();
    const b = board({ servers: { s: { transport: () => s.clientSide, protocol: "legacy", circuit: { failureThreshold: 2, cooldownMs: 60_000 } } } });
    await b.start();
    await b.listTools();
    const timeout = { timeoutMs: 20 };
    const first = await b.callTool("s__slow", {}, timeout).catch((e: unknown) => e);
    expect(first).toMatchObject({ name: "RequestTimeoutError", server: "s" });
    await b.callTool("s__echo", {}); // resets the consecutive failures
    await b.callTool("s__slow", {}, timeout).catch(() => {});
    expect(b.status().s.circuit).toBe("closed");
    await b.callTool("s__slow", {}, timeout).catch(() => {});
    expect(b.status().s.circuit).toBe("open");
    await expect(b.callTool("s__echo", {})).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it("a transport that throws while sending gives a rejected promise naming the server, not a throw", async () => {
    const s = server();
    let broken = false;
    const send = s.clientSide.send.bind(s.clientSide);
    s.clientSide.send = (message: JsonRpcMessage) => {
      if (broken) throw new TransportError("the pipe is gone", { delivered: false });
      return send(message);
    };
    const b = board({ servers: { s: { transport: () => s.clientSide, protocol: "legacy" } } });
    await b.start();
    await b.listTools();
    broken = true;
    let call: Promise<unknown> | undefined;
    expect(() => {
      call = b.callTool("s__echo", { text: "x" });
    }).not.toThrow();
    await expect(call).rejects.toMatchObject({ message: "the pipe is gone", server: "s" });
    expect(b.status().s.inFlight).toBe(0);
  });

  it("an already aborted signal is refused before anything is sent", async () => {
    const s = server();
    const b = board({ servers: { s: { transport: () => s.clientSide, protocol: "legacy" } } });
    await b.start();
    await b.listTools();
    const error = await b.callTool("s__echo", {}, { signal: AbortSignal.abort("no longer needed") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error).toMatchObject({ delivered: false, server: "s" });
    expect(s.messages("tools/call")).toHaveLength(0);
  });

  it("resolves names from the servers' own listings, with no listTools() call, and follows list_changed", async () => {
    let tools = [{ name: "echo", inputSchema: { type: "object" } }];
    const s = new ScriptedServer().on("tools/list", () => ({ tools }));
    const b = board({ servers: { s: { transport: () => s.clientSide, protocol: "legacy", tools: { except: ["hidden"] } } } });
    await b.start();
    await waitFor(() => s.messages("tools/list").length === 1);
    expect((await b.callTool("s__echo", { text: "one" })).content).toEqual([{ type: "text", text: "one" }]);
    tools = [
      { name: "echo2", inputSchema: { type: "object" } },
      { name: "hidden", inputSchema: { type: "object" } },
    ];
    s.notify("notifications/tools/list_changed");
    await waitFor(() => s.messages("tools/list").length === 2);
    await new Promise((r) => setTimeout(r, 20));
    expect((await b.callTool("s__echo2", { text: "two" })).content).toEqual([{ type: "text", text: "two" }]);
    // Filtered out: refused on the board, never sent.
    await expect(b.callTool("s__hidden", {})).rejects.toThrow(/not exposed/);
    expect(s.messages("tools/call").map((m) => (m as unknown as { params: { name: string } }).params.name)).toEqual(["echo", "echo2"]);
  });
});
