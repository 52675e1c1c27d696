/**
 * Options written as `{ x: undefined }` (as code built with exactOptionalPropertyTypes writes them)
 * mean "not set": they must leave the board-wide value in place, as leaving `x` out does.
 */
import { describe, expect, it } from "vitest";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach } from "./board-helpers.js";

const board = boardsAfterEach();

describe("Switchboard options set to undefined", () => {
  it("a server's client option set to undefined keeps the board-wide one", async () => {
    const roots = [{ uri: "file:///board-wide", name: "board-wide" }];
    const b = board({
      client: { roots },
      servers: {
        plain: { transport: () => new ScriptedServer().clientSide },
        own: { transport: () => new ScriptedServer().clientSide, client: { roots: undefined, requestTimeoutMs: undefined } },
      },
    });
    await b.start();
    expect(b.client("plain")!.roots).toEqual(roots);
    expect(b.client("own")!.roots).toEqual(roots);
  });

  it("an init setting set to undefined keeps the one given as the second argument", async () => {
    const seen: string[] = [];
    const b = new Switchboard(
      { servers: { s: { transport: () => new ScriptedServer().clientSide } }, hooks: undefined },
      { hooks: { before: (c) => void seen.push(c.name) } },
    );
    try {
      await b.start();
      await b.callTool("s__echo", {});
      expect(seen).toEqual(["s__echo"]);
    } finally {
      await b.stop();
    }
  });
});
