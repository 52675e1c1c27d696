/**
 * A call's own `onLog` (CallToolOptions.handlers): the log messages a server sends on that call's own
 * stream reach it, and still the connection's `log` event; another call's logs do not. Both eras: a
 * 2026 server (SDK v2) logging at the request's level, a 2025 SDK server logging on the call's stream.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../src/client/connect.js";
import type { LogParams } from "../../src/connection/events.js";
import { createAskingServer } from "../fixtures/asking-server.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";
import { closeAfterEach } from "../helpers/close-after-each.js";

const track = closeAfterEach();
const said = (logs: LogParams[]) => logs.map((log) => log.level);

describe("a call's own onLog", () => {
  it("2026 era: gets its call's logs at the connection's level; the log event gets every call's", async () => {
    const up = await startSdkV2Http("reject");
    track({ close: () => up.close() });
    const client = track(await connect({ url: up.url }, { protocol: "2026-07-28" }));
    await client.setLoggingLevel("info");
    const everyCall: LogParams[] = [];
    client.on("log", (params) => everyCall.push(params));
    const own: LogParams[] = [];
    await Promise.all([client.callTool("chatty", {}, { handlers: { onLog: (params) => own.push(params) } }), client.callTool("chatty", {})]);
    expect(said(own)).toEqual(["info", "warning"]);
    expect(said(everyCall).sort()).toEqual(["info", "info", "warning", "warning"]);
  });

  it("2025 era: a client that declared nothing a server may ask still routes a call's logs to it", async () => {
    const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
    const client = track(await connect({ url: asking.url }, { protocol: "legacy" }));
    const own: LogParams[] = [];
    await client.callTool("chatty", {}, { handlers: { onLog: (params) => own.push(params) } });
    expect(own.map((log) => `${log.level}:${String(log.data)}`)).toEqual(["debug:debug from chatty", "info:info from chatty", "warning:warning from chatty"]);
  });

  it("an onLog that throws is reported as an error event; the call and the log event go on", async () => {
    const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
    const client = track(await connect({ url: asking.url }, { protocol: "legacy" }));
    const errors: Error[] = [];
    const logs: LogParams[] = [];
    client.on("error", (error) => errors.push(error));
    client.on("log", (params) => logs.push(params));
    const result = await client.callTool(
      "chatty",
      {},
      {
        handlers: {
          onLog: () => {
            throw new Error("host log sink is full");
          },
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "said it" }]);
    expect(logs).toHaveLength(3);
    expect(errors.map((e) => e.message)).toEqual(Array(3).fill("A call's onLog handler failed: host log sink is full"));
  });
});
