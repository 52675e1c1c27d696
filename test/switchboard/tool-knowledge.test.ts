/**
 * The board knows each server's tools before a routing decision needs them (src/switchboard/server-tools.ts), with
 * scripted servers: the lookup at a failure, list_changed refreshes and their flood bound, a listing
 * that fails. (The kill -9 case with real processes is in switchboard.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { waitFor } from "../helpers/processes.js";
import { replyError } from "../helpers/modern-server.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach } from "./board-helpers.js";

const board = boardsAfterEach();
const noRestart = { maxRestarts: 0, withinMs: 10_000 };

const echoTool = (annotations?: Record<string, boolean>) => ({ name: "echo", inputSchema: { type: "object" }, ...(annotations ? { annotations } : {}) });

/** A scripted server whose tools/call never answers, so calls stay in flight. */
function hangingServer(): ScriptedServer {
  return new ScriptedServer().on("tools/call", () => "silent");
}

/** A board of two scripted 2025-era servers: `primary` (no restarts) with `backup` as its fallback. */
function pair(primary: ScriptedServer, backup: ScriptedServer) {
  return board({
    servers: {
      primary: { transport: () => primary.clientSide, fallbacks: ["backup"], restart: noRestart, protocol: "legacy" },
      backup: { transport: () => backup.clientSide, protocol: "legacy" },
    },
  });
}

/** A scripted server that answers tools/call with "from <name>". */
function answeringServer(name: string, tools: unknown[]): ScriptedServer {
  return new ScriptedServer().on("tools/list", () => ({ tools })).on("tools/call", () => ({ content: [{ type: "text", text: `from ${name}` }] }));
}

describe("Switchboard tool knowledge", () => {
  it("a call that fails before any tool list arrived looks the tool up (on the fallback) before deciding, and moves", async () => {
    const primary = hangingServer().on("tools/list", () => "silent"); // its list never comes
    const backup = answeringServer("backup", [echoTool({ readOnlyHint: true })]);
    const b = pair(primary, backup);
    const moved: string[] = [];
    b.on("fallback", (e) => moved.push(`${e.from}->${e.to}: ${e.reason}`));
    await b.start();
    const call = b.callTool("primary__echo", { text: "x" });
    await waitFor(() => primary.messages("tools/call").length === 1);
    await primary.crash();
    expect((await call).content).toEqual([{ type: "text", text: "from backup" }]);
    expect(moved).toEqual([expect.stringMatching(/^primary->backup: ConnectionClosedError after the request may have run; the call is idempotent$/)]);
  });

  it("a tool the lists say is not idempotent does not move after delivery", async () => {
    const primary = hangingServer().on("tools/list", () => ({ tools: [echoTool()] }));
    const backup = answeringServer("backup", [echoTool()]);
    const b = pair(primary, backup);
    await b.start();
    const call = b.callTool("primary__echo", { text: "x" }).catch((e: unknown) => e);
    await waitFor(() => primary.messages("tools/call").length === 1);
    await primary.crash();
    expect(await call).toMatchObject({ name: "ConnectionClosedError", server: "primary" });
    expect(backup.messages("tools/call")).toHaveLength(0);
  });

  it("list_changed refreshes the annotations without any listTools() call, and the next failure uses them", async () => {
    let annotations: Record<string, boolean> | undefined;
    const primary = hangingServer().on("tools/list", () => ({ tools: [echoTool(annotations)] }));
    // The backup says nothing about idempotence: only the primary's refreshed list can allow the move.
    const backup = answeringServer("backup", [echoTool()]);
    const b = pair(primary, backup);
    await b.start();
    await waitFor(() => primary.messages("tools/list").length === 1); // listed because it came up
    annotations = { idempotentHint: true };
    primary.notify("notifications/tools/list_changed");
    await waitFor(() => primary.messages("tools/list").length === 2); // and again because it changed
    await new Promise((r) => setTimeout(r, 20)); // the answer is on its way back
    const call = b.callTool("primary__echo", { text: "x" });
    await waitFor(() => primary.messages("tools/call").length === 1);
    await primary.crash();
    expect((await call).content).toEqual([{ type: "text", text: "from backup" }]);
  });

  it("a flood of list_changed costs one listing at a time: one more after the one under way, not one per notice", async () => {
    const pending: Array<() => void> = [];
    const server = new ScriptedServer().on("tools/list", (request, s) => {
      pending.push(() => s.send({ jsonrpc: "2.0", id: request.id, result: { tools: [echoTool({ readOnlyHint: true })] } }));
      return "silent";
    });
    const b = board({ servers: { s: { transport: () => server.clientSide, protocol: "legacy" } } });
    await b.start();
    await waitFor(() => pending.length === 1);
    for (let i = 0; i < 200; i++) server.notify("notifications/tools/list_changed");
    await new Promise((r) => setTimeout(r, 50));
    expect(server.messages("tools/list")).toHaveLength(1);
    pending.shift()!();
    await waitFor(() => pending.length === 1);
    pending.shift()!();
    await new Promise((r) => setTimeout(r, 50));
    expect(server.messages("tools/list")).toHaveLength(2);
    expect((await b.listTools()).map((t) => t.annotations)).toEqual([{ readOnlyHint: true }]);
    expect(server.messages("tools/list")).toHaveLength(2); // fresh: listTools() cost no round trip
  });

  it("a listing that fails is an error event; the server stays up and serves calls", async () => {
    const server = new ScriptedServer().on("tools/list", (request, s) => replyError(s, request.id, -32603, "tool registry unavailable"));
    const b = board({ servers: { s: { transport: () => server.clientSide, protocol: "legacy" } } });
    const errors: Array<{ server?: string; message: string }> = [];
    b.on("error", (e) => errors.push({ server: e.server, message: e.error.message }));
    await b.start();
    await waitFor(() => errors.length > 0);
    expect(errors[0]).toEqual({ server: "s", message: expect.stringMatching(/tool registry unavailable/) });
    expect(b.status().s.state).toBe("up");
    expect((await b.callTool("s__echo", { text: "still here" })).content).toEqual([{ type: "text", text: "still here" }]);
  });
});
