/**
 * The observer's HTTP side: the page at `/`, its live stream at `/events` (server-sent events: one
 * snapshot at once, then one a second and one soon after each lifecycle change), and `/snapshot.json`.
 * Bound to 127.0.0.1 unless told otherwise; on loopback, a request naming any other host is refused, so
 * a web page elsewhere cannot read it through a rebound DNS name.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../jsonrpc/errors.js";
import { isBehind } from "../util/event-stream.js";
import { page } from "./page.js";

export const DEFAULT_PORT = 7331;
export const DEFAULT_HOST = "127.0.0.1";
/** How often an open page gets a fresh snapshot (the sparklines move by the second). */
const TICK_MS = 1000;
/** A lifecycle change reaches the page this soon (changes in a burst go out together). */
const SOON_MS = 50;
/** Bytes a page may leave unread before frames are skipped for it: a few snapshots of a large board. */
const MAX_UNREAD = 4 * 1024 * 1024;

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function checkPort(port: unknown): number {
  if (port === undefined) return DEFAULT_PORT;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`expected an integer from 0 to 65535 (0: any free port), found ${JSON.stringify(port) ?? typeof port}`, { field: "port" });
  }
  return port;
}

export class ObserverServer {
  private readonly server: Server;
  private readonly streams = new Set<ServerResponse>();
  private tick: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private allowedHosts: Set<string> | undefined;
  port = 0;

  private refreshing = false;

  constructor(
    private readonly payload: () => string,
    /** Data read elsewhere (the fleet's members) before each tick's snapshot; never rejects. */
    private readonly refresh?: () => Promise<void>,
  ) {
    this.server = createServer((request, response) => this.handle(request, response));
  }

  /** Listens; a port in use (or not allowed) is a ConfigError naming it. */
  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) => {
        const why =
          error.code === "EADDRINUSE"
            ? "is in use"
            : error.code === "EACCES"
              ? "is not allowed for this user"
              : `cannot be listened on (${error.code ?? error.message})`;
        reject(new ConfigError(`port ${port} on ${host} ${why}: pass another port (--port N; 0 picks a free one)`, { field: "port", cause: error }));
      };
      this.server.once("error", failed);
      this.server.listen(port, host, () => {
        this.server.off("error", failed);
        this.port = (this.server.address() as AddressInfo).port;
        if (isLoopback(host))
          this.allowedHosts = new Set(["127.0.0.1", "localhost", "[::1]", host.includes(":") ? `[${host}]` : host].map((h) => `${h}:${this.port}`));
        resolve();
      });
    });
  }

  get pages(): number {
    return this.streams.size;
  }

  /** Something changed that a page should show now rather than at the next tick. */
  changed(): void {
    if (this.streams.size === 0 || this.soon !== undefined) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.push();
    }, SOON_MS);
    this.soon.unref();
  }

  private push(): void {
    if (this.streams.size === 0) return;
    const frame = `data: ${this.payload()}\n\n`;
    // Each frame is a whole snapshot, so a page that fell behind (a tab the browser froze, a client that
    // stopped reading) skips frames rather than making this process hold them: the next one it reads is current.
    for (const stream of this.streams) if (!isBehind(stream, MAX_UNREAD)) stream.write(frame);
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    if (this.allowedHosts !== undefined && !this.allowedHosts.has(request.headers.host ?? "")) {
      response.writeHead(421, { "content-type": "text/plain" }).end("This observer answers only to its loopback address.\n");
      return;
    }
    const path = (request.url ?? "/").split("?", 1)[0];
    const common = { "cache-control": "no-store", "x-content-type-options": "nosniff" };
    if (request.method !== "GET") {
      response.writeHead(405, { ...common, allow: "GET" }).end();
    } else if (path === "/") {
      // The page arrives with a snapshot in it: its first paint shows the board, never an empty page.
      void this.fresh().then(() =>
        response
          .writeHead(200, {
            ...common,
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
          })
          .end(page(this.payload())),
      );
    } else if (path === "/snapshot.json") {
      void this.fresh().then(() => response.writeHead(200, { ...common, "content-type": "application/json" }).end(this.payload()));
    } else if (path === "/events") {
      this.openStream(response);
    } else {
      response.writeHead(404, { ...common, "content-type": "text/plain" }).end("Not found\n");
    }
  }

  /** Reads what is read elsewhere (the fleet's members) for a snapshot asked for outside the ticks. */
  private fresh(): Promise<void> {
    return this.refresh?.() ?? Promise.resolve();
  }

  private openStream(response: ServerResponse): void {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    response.write(`retry: 1000\ndata: ${this.payload()}\n\n`);
    this.streams.add(response);
    response.on("close", () => {
      this.streams.delete(response);
      if (this.streams.size === 0 && this.tick !== undefined) {
        clearInterval(this.tick);
        this.tick = undefined;
      }
    });
    if (this.tick === undefined) {
      this.tick = setInterval(() => this.ticked(), TICK_MS);
      this.tick.unref();
    }
    // A new page sees the fleet at once, not a tick later.
    if (this.refresh !== undefined) void this.refresh().then(() => this.changed());
  }

  private ticked(): void {
    if (this.refresh === undefined) return this.push();
    if (this.refreshing) return;
    this.refreshing = true;
    void this.refresh().then(() => {
      this.refreshing = false;
      this.push();
    });
  }

  async close(): Promise<void> {
    clearInterval(this.tick);
    clearTimeout(this.soon);
    this.tick = this.soon = undefined;
    for (const stream of this.streams) stream.end();
    this.streams.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
