/**
 * The era decision as one loop: each step (initialize, probe, HTTP+SSE) runs at most once per reason,
 * so no server answer can make the client go round forever; and server traffic that arrives while the
 * era is still undecided is treated as the 2025 era treats it.
 */
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { createClient, ProtocolError, type LogParams, type Transport } from "../../src/index.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { modernServer, requestsOf } from "../helpers/modern-server.js";

const track = closeAfterEach();

/** `transport`, reporting itself as HTTP+SSE (a 2025-only transport: nothing is probed over it). */
function asSse(transport: Transport): Transport {
  return new Proxy(transport, {
    get(target, property) {
      if (property === "kind") return "sse";
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("the negotiation loop", () => {
  it("over HTTP+SSE, initialize refused with -32022 naming a 2026 version fails once: no probe, no second initialize", async () => {
    const server = modernServer(); // refuses initialize with -32022 { supported: ["2026-07-28"] }
    const client = track(createClient(asSse(server.clientSide), { protocol: "auto" }));
    const error = await client.start().catch((e) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.code).toBe(-32022);
    expect(requestsOf(server).map((r) => r.method)).toEqual(["initialize"]);
    expect(client.state).toBe("failed");
  });

  it("a log a 2025 server sends before it answers initialize is a log event (start() connects a createClient() client)", async () => {
    const server = new ScriptedServer();
    server.on("initialize", (request, s) => {
      s.notify("notifications/message", { level: "info", data: "starting up" });
      s.send({ jsonrpc: "2.0", id: request.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "chatty", version: "1" } } });
      return "silent";
    });
    const client = track(createClient(server.clientSide, { protocol: "legacy" }));
    const logs: LogParams[] = [];
    client.on("log", (params) => logs.push(params));
    expect(client.state).toBe("idle");
    await client.start();
    expect(client.state).toBe("ready");
    expect(logs).toEqual([{ level: "info", data: "starting up" }]);
  });
});
