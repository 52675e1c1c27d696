/** Backpressure on the event streams we serve (src/util/event-stream.ts), against a real socket that stops reading. */
import { createServer, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isBehind, writeOrCut } from "../../src/util/event-stream.js";

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A response whose client read the headers and then stopped reading. */
async function stalledResponse(): Promise<ServerResponse> {
  let opened!: (response: ServerResponse) => void;
  const response = new Promise<ServerResponse>((resolve) => (opened = resolve));
  const server = createServer((_request, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    opened(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
  socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  socket.once("data", () => socket.pause());
  closers.push(() => {
    socket.destroy();
    server.closeAllConnections();
    server.close();
  });
  return response;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("event streams whose client stops reading", () => {
  it("writeOrCut writes until the client is more than maxUnread bytes behind, then cuts the stream", async () => {
    const response = await stalledResponse();
    const frame = `data: ${"x".repeat(64 * 1024)}\n\n`;
    const maxUnread = 512 * 1024;
    let written = 0;
    // The kernel takes a few MiB of a loopback socket first; past that, our buffer grows until the limit.
    while (writeOrCut(response, frame, maxUnread)) {
      written += frame.length;
      expect(written).toBeLessThan(64 * 1024 * 1024);
      await tick();
    }
    expect(response.destroyed).toBe(true);
    expect(written).toBeGreaterThan(maxUnread);
    expect(writeOrCut(response, frame, maxUnread)).toBe(false);
  });

  it("isBehind says when the client has left more than maxUnread bytes unread, and cuts nothing", async () => {
    const response = await stalledResponse();
    const frame = `data: ${"y".repeat(64 * 1024)}\n\n`;
    expect(isBehind(response, 256 * 1024)).toBe(false);
    for (let i = 0; i < 1024 && !isBehind(response, 256 * 1024); i++) {
      response.write(frame);
      await tick();
    }
    expect(isBehind(response, 256 * 1024)).toBe(true);
    expect(response.destroyed).toBe(false);
  });
});
