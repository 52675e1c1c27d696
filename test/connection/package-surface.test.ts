/**
 * The connection is internal: users get an McpClient from connect() or createClient(). The client
 * names itself with the package's own version, read from package.json.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import * as entry from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

const track = closeAfterEach();
const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

describe("the package surface around the connection", () => {
  it("does not export Connection; keeps DEFAULT_REQUEST_TIMEOUT_MS", () => {
    expect("Connection" in entry).toBe(false);
    expect(entry.DEFAULT_REQUEST_TIMEOUT_MS).toBe(60_000);
  });

  it("the default clientInfo carries package.json's version", async () => {
    const server = new ScriptedServer();
    track(await entry.connect(server.clientSide, { protocol: "legacy" }));
    expect(server.messages("initialize")[0]).toMatchObject({ params: { clientInfo: { name: "mcp-switchboard", version } } });
  });
});
