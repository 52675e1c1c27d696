/** Wrong option types answer with a ConfigError naming the field and what it takes (docs/guide/catalogs.md). */
import { describe, expect, it } from "vitest";
import { ConfigError, Switchboard, connect } from "../../src/index.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

describe("option types", () => {
  it("telemetry: true on connect() is a ConfigError naming the field, before anything is spawned", async () => {
    const server = new ScriptedServer();
    const error = await connect({ transport: server.clientSide } as never, { telemetry: true as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/field "telemetry": expected an Instrumentation .*found boolean true/);
  });

  it("a Switchboard's board-wide and per-server client options are checked at construction", () => {
    const server = new ScriptedServer();
    expect(() => new Switchboard({ servers: { a: { transport: () => server.clientSide } }, client: { telemetry: true as never } })).toThrow(
      /field "client.telemetry"/,
    );
    expect(() => new Switchboard({ servers: { a: { transport: () => server.clientSide, client: { requestTimeoutMs: "5s" as never } } } })).toThrow(
      /server "a", field "client.requestTimeoutMs": expected a number, found string "5s"/,
    );
    expect(() => new Switchboard({ servers: { a: { transport: () => server.clientSide, client: { onSampling: {} as never } } } })).toThrow(
      /expected a function/,
    );
  });

  it("config entries: lazy and idleMs take a boolean and a whole number of ms", async () => {
    await expect(Switchboard.fromConfig({ mcpServers: { a: { command: "x", lazy: "yes" } } } as never)).rejects.toThrow(/field "lazy"/);
    await expect(Switchboard.fromConfig({ mcpServers: { a: { command: "x", lazy: true, idleMs: -1 } } })).rejects.toThrow(/field "idleMs"/);
    const board = await Switchboard.fromConfig({ mcpServers: { a: { command: "x", lazy: true, idleMs: 5000 } } });
    expect(board.status().a.state).toBe("idle");
    await board.stop();
  });
});
