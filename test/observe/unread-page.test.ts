/**
 * A page that stops reading its event stream (a tab the browser froze, a client that hung) must not
 * make the observer hold every snapshot sent to it: frames are skipped for it once it is 4 MiB behind
 * (src/observe/server.ts), and it gets the current one when it reads again.
 */
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { ObserverServer } from "../../src/observe/server.js";

const FRAME = 1024 * 1024;
const PUSHES = 30; // 30 MiB of snapshots, beyond loopback's socket buffers and the limit together

let server: ObserverServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("skips snapshots for a page far behind, keeps its stream, and sends the current one once it reads", async () => {
  let version = 0;
  server = new ObserverServer(() => JSON.stringify({ version, filler: "x".repeat(FRAME) }));
  await server.listen(0, "127.0.0.1");
  const socket = connect(server.port, "127.0.0.1");
  let bytes = 0;
  let text = "";
  let closed = false;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    bytes += Buffer.byteLength(chunk);
    text = (text + chunk).slice(-2 * FRAME); // the last frames are enough to read the newest version
    socket.pause();
  });
  socket.once("close", () => (closed = true));
  socket.write(`GET /events HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\n\r\n`);
  await expect.poll(() => bytes).toBeGreaterThan(0);

  for (let i = 1; i <= PUSHES; i++) {
    version = i;
    server.changed();
    await sleep(60); // changes within 50 ms go out together
  }
  socket.resume();
  socket.on("data", () => socket.resume());
  let last = -1;
  for (let i = 0; i < 100 && bytes !== last; i++) {
    last = bytes;
    await sleep(100);
  }
  expect(closed).toBe(false);
  // What the kernel took and at most the limit and a frame more: well under the 30 MiB pushed.
  expect(bytes).toBeLessThan(PUSHES * FRAME * 0.6);
  // The page reads again: the next snapshot reaches it whole.
  version = PUSHES + 1;
  server.changed();
  await expect.poll(() => text.includes(`"version":${PUSHES + 1},`), { timeout: 3_000 }).toBe(true);
  socket.destroy();
});
