/**
 * Servers that lie, stall or abuse the protocol, on every transport: each case ends in a clear, typed
 * error (or an error event) within its bound, releases what it held, and leaves the connection usable
 * where it can be. The big ones have files of their own (message-limit, abandon, redirects, stdio).
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect, RequestTimeoutError, TransportError } from "../../src/index.js";
import { LegacySseTransport } from "../../src/transports/legacy-sse.js";
import { WebSocketTransport } from "../../src/transports/websocket.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";
import { honestAnswer, startHostileHttp } from "../fixtures/hostile-http.js";

const track = closeAfterEach();
const node = process.execPath;
const DEEP = 100_000;
const deepJson = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;

/** A TCP server that accepts connections and never says a word. */
async function silentServer(): Promise<{ port: number; open(): number }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.resume(); // read (and drop) what arrives, so the client's close is seen
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  track({ close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))) });
  return { port: (server.address() as AddressInfo).port, open: () => sockets.size };
}

/** A 2025 server whose `bad` tool gets the answer `reply` writes. */
async function answering(reply: (res: ServerResponse, id: unknown) => void) {
  const server = track(
    await startHostileHttp(({ body, res }) => {
      if (body?.method !== "tools/call" || body.params?.name !== "bad") return false;
      reply(res, body.id);
      return true;
    }),
  );
  return { server, client: track(await connect({ url: server.url }, { protocol: "legacy" })) };
}

describe("Streamable HTTP replies that lie", () => {
  const cases: [string, (res: ServerResponse, id: unknown) => void, RegExp][] = [
    [
      "a JSON body that does not parse",
      (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0",'),
      /answered HTTP 200 with a JSON body that does not parse/,
    ],
    [
      "a JSON body answering another id",
      (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":999,"result":{}}'),
      /answered HTTP 200 with JSON that holds no response to request \d+/,
    ],
    [
      "a Content-Length longer than the body",
      (res, id) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
        res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},`);
        setTimeout(() => res.destroy(), 20);
      },
      /the connection was lost while reading the response body|aborted|socket hang up/,
    ],
  ];
  for (const [what, reply, message] of cases) {
    it(`${what}: the call fails at once with a TransportError; the next call works`, async () => {
      const { client } = await answering(reply);
      const error = await client.callTool("bad", {}, { timeoutMs: 30_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      expect((error as Error).message).toMatch(message);
      expect((await client.callTool("echo", {})).isError).toBeFalsy();
    });
  }

  it("newline-delimited JSON under application/json (progress, then the response): both are read", async () => {
    const { client } = await answering((res, id) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id, progress: 50, total: 100 } })}\n`);
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "streamed" }] } }));
    });
    const progress: number[] = [];
    const result = await client.callTool("bad", {}, { onProgress: (p) => progress.push(p.progress) });
    expect(result.content).toEqual([{ type: "text", text: "streamed" }]);
    expect(progress).toEqual([50]);
  });

  it("a body that trickles (slowloris): the call times out and its socket is released", async () => {
    const held = new Set<ServerResponse>();
    const { client } = await answering((res) => {
      held.add(res);
      res.on("close", () => held.delete(res));
      res.writeHead(200, { "content-type": "application/json" });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(" ")), 20);
    });
    await expect(client.callTool("bad", {}, { timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await waitFor(() => held.size === 0, 2000);
  });

  it("JSON nested 100,000 deep, in a JSON body and in an event: answered, nothing crashes", async () => {
    const { client } = await answering((res, id) => {
      res.writeHead(200, { "content-type": "application/json" }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"deep":${deepJson}}}`);
    });
    const result = await client.callTool("bad", {});
    expect(Array.isArray(result.deep)).toBe(true);
    const { client: streamed } = await answering((res, id) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deepJson}}}\n\n`);
      res.end(`data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"deep":${deepJson}}}\n\n`);
    });
    const errors: Error[] = [];
    streamed.on("error", (e) => errors.push(e));
    expect(Array.isArray((await streamed.callTool("bad", {})).deep)).toBe(true);
    expect((await streamed.callTool("echo", {})).isError).toBeFalsy();
  });

  it("a deeply nested value that is not JSON-RPC is reported without breaking the stream", async () => {
    const { client } = await answering((res, id) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${deepJson}\n\n`);
      res.end(`data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[]}}\n\n`);
    });
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    await client.callTool("bad", {});
    expect(errors.some((e) => /not a JSON-RPC 2.0 message/.test(e.message))).toBe(true);
  });

  it("invalid UTF-8 in an event: replaced, reported if it breaks the JSON, and the call still ends", async () => {
    const { client } = await answering((res, id) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        Buffer.concat([
          Buffer.from('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from('"}}\n\n'),
        ]),
      );
      res.write(Buffer.concat([Buffer.from("data: "), Buffer.from([0xc0, 0x80]), Buffer.from("\n\n")]));
      res.end(`data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[]}}\n\n`);
    });
    const logs: unknown[] = [];
    client.on("log", (l) => logs.push(l.data));
    client.on("error", () => {});
    await client.callTool("bad", {});
    expect(logs).toEqual(["\uFFFD\uFFFD\uFFFD"]);
  });
});

describe("peers that accept the connection and never answer", () => {
  it("Streamable HTTP: connect() fails at its deadline and lets go of the socket", async () => {
    const silent = await silentServer();
    const error = await connect({ url: `http://127.0.0.1:${silent.port}/mcp` }, { protocol: "legacy", requestTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    await waitFor(() => silent.open() === 0, 2000);
  });

  it("HTTP+SSE: no headers at all is bounded by endpointTimeoutMs too", async () => {
    const silent = await silentServer();
    const transport = new LegacySseTransport({ url: `http://127.0.0.1:${silent.port}/sse`, endpointTimeoutMs: 300 });
    const error = await connect(transport, { protocol: "2024-11-05" }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/sent no "endpoint" event within 300 ms/);
    await waitFor(() => silent.open() === 0, 2000);
  });

  it("WebSocket: a handshake that never completes fails after handshakeTimeoutMs", async () => {
    const silent = await silentServer();
    const transport = new WebSocketTransport({ url: `ws://127.0.0.1:${silent.port}/mcp`, handshakeTimeoutMs: 300 });
    const error = await connect(transport, { protocol: "legacy" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/WebSocket connection to ws:\/\/127\.0\.0\.1:\d+\/mcp failed: Opening handshake has timed out/);
    await waitFor(() => silent.open() === 0, 2000);
  });
});

describe("WebSocket and stdio peers", () => {
  it("a WebSocket redirect is refused with the place it pointed to", async () => {
    const server = track(await startHostileHttp(({ res }) => (res.writeHead(307, { location: "ws://127.0.0.1:1/elsewhere" }).end(), true)));
    const error = await connect({ url: `ws://127.0.0.1:${server.port}/mcp` }, { protocol: "legacy" }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /handshake with .* failed: HTTP 307 \(a redirect to ws:\/\/127\.0\.0\.1:1\/elsewhere; connect to that URL instead/,
    );
  });

  it("WebSocket: JSON nested 100,000 deep is answered, nothing crashes", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => "mcp" });
    await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
    track({ close: () => new Promise<void>((resolve) => (wss.clients.forEach((s) => s.terminate()), wss.close(() => resolve()))) });
    wss.on("connection", (socket) =>
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString());
        if (message.id === undefined) return;
        if (message.params?.name === "deep") return void socket.send(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[],"deep":${deepJson}}}`);
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: honestAnswer(message) }));
      }),
    );
    const client = track(await connect({ url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp` }, { protocol: "legacy" }));
    expect(Array.isArray((await client.callTool("deep", {})).deep)).toBe(true);
  });

  it("stdio: a server flooding stderr keeps a bounded tail, and answers still arrive", async () => {
    const script = `process.stderr.write("e".repeat(1 << 20) + "\\nlast words\\n"); ${STDIO_ECHO}`;
    const client = track(await connect({ command: node, args: ["-e", script] }, { protocol: "legacy" }));
    expect((await client.callTool("echo", {})).content).toEqual([{ type: "text", text: "{}" }]);
    const tail = () => (client.connection.transport as unknown as { stderrTail: string }).stderrTail;
    await waitFor(() => tail().includes("last words"));
    expect(tail()).toBe("last words");
  });

  it("stdio: JSON nested 100,000 deep in a response line is answered, nothing crashes", async () => {
    const client = track(await connect({ command: node, args: ["-e", STDIO_ECHO] }, { protocol: "legacy" }));
    expect(Array.isArray((await client.callTool("deep", {})).deep)).toBe(true);
  });
});

/** A tiny stdio server: answers initialize, echoes tools/call arguments; its `deep` tool answers with JSON nested 100,000 deep. */
const STDIO_ECHO = `
let buffer = "";
process.stdin.on("data", (c) => {
  buffer += c;
  let i;
  while ((i = buffer.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buffer.slice(0, i));
    buffer = buffer.slice(i + 1);
    if (m.id === undefined) continue;
    if (m.params?.name === "deep") {
      process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"content":[],"deep":' + "[".repeat(${DEEP}) + "]".repeat(${DEEP}) + "}}\\n");
      continue;
    }
    const result = m.method === "initialize" ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "e", version: "1" } } : { content: [{ type: "text", text: JSON.stringify(m.params.arguments ?? {}) }] };
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
  }
});
process.stdin.on("end", () => process.exit(0));
`;
