/**
 * `maxMessageBytes` (docs/guide/switchboard.md, "Limits and faults"), the memory side: against a server that streams until the client goes (one endless
 * SSE data line, one endless JSON body, an endless run of small notifications with event ids), the
 * client's live memory (heap plus array buffers after a forced GC, in a child `node --expose-gc`)
 * grows by less than 64 MB with the default 16 MiB limit. Before the limit, the endless line was held
 * whole until the request's deadline (hundreds of MB).
 */
import { spawn } from "node:child_process";
import type { ServerResponse } from "node:http";
import { expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { startHostileHttp } from "../fixtures/hostile-http.js";

const track = closeAfterEach();
const CLIENT = new URL("../fixtures/oversize-memory-client.ts", import.meta.url).pathname;
const MB = 1024 * 1024;

/** Writes what `next()` gives for as long as the client reads, at most `cap` bytes. */
function stream(res: ServerResponse, next: () => string, cap = 512 * MB): void {
  let sent = 0;
  const pump = () => {
    while (!res.destroyed && sent < cap) {
      const chunk = next();
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

it("live memory grows by less than 64 MB while servers stream endless messages", async () => {
  const block = "x".repeat(256 * 1024);
  const server = track(
    await startHostileHttp(({ body, res }) => {
      if (body?.method !== "tools/call" || body.params?.name === "echo") return false;
      const tool = body.params?.name;
      if (tool === "flood-json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`{"jsonrpc":"2.0","id":${body.id},"result":{"x":"`);
        stream(res, () => block);
        return true;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (tool === "flood-sse") {
        res.write("id: 1\ndata: ");
        stream(res, () => block);
        return true;
      }
      let n = 0;
      const note = (i: number) => `id: ${i}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":${i}}}\n\n`;
      stream(res, () => Array.from({ length: 200 }, () => note(n++)).join(""));
      return true;
    }),
  );
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", CLIENT, server.url], { stdio: ["ignore", "pipe", "pipe"] });
  track({ close: async () => void child.kill("SIGKILL") });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(err).toBe("");
  expect(code).toBe(0);
  const report = JSON.parse(out) as { baseline: number; after: number; results: Record<string, { settled: string; live: number }> };
  expect(report.results["flood-sse"].settled).toBe("MessageTooLargeError");
  expect(report.results["flood-json"].settled).toBe("MessageTooLargeError");
  expect(report.results.notifications.settled).toBe("pending");
  for (const [tool, { live }] of Object.entries(report.results)) {
    expect({ tool, growthMB: Math.round((live - report.baseline) / MB) }).toEqual({ tool, growthMB: expect.toSatisfy((mb: number) => mb < 64) });
  }
  expect((report.after - report.baseline) / MB).toBeLessThan(64);
}, 60_000);
