/**
 * The loopback redirect listener of RFC 8252 §7.3 for command-line and desktop use: an HTTP server on
 * 127.0.0.1 only (never a public interface), on the given or an ephemeral port, that takes exactly
 * one callback on its path, answers the browser with a short page, and closes. It gives up after
 * `timeoutMs`. The authorization server sees `http://127.0.0.1:<port><path>` as the redirect URI.
 */
import { createServer, type Server } from "node:http";
import { AuthorizationError } from "./errors.js";

export interface LoopbackOptions {
  /** Default 0: an ephemeral port (a stored registration's port is tried first). */
  port?: number | undefined;
  /** Default "/callback". */
  path?: string | undefined;
  /** How long to wait for the browser to come back (default 300000 ms). */
  timeoutMs?: number | undefined;
}

export interface LoopbackListener {
  redirectUri: string;
  /** Resolves with the callback URL (its query holds code, state, iss or error). */
  callback: Promise<URL>;
  close(): Promise<void>;
}

const PAGE = (ok: boolean) =>
  `<!doctype html><meta charset="utf-8"><title>mcp-switchboard</title><p>${ok ? "Authorization received. You can close this window." : "Authorization failed; see the terminal."}</p>`;

export async function openLoopback(options: LoopbackOptions = {}, preferredPort?: number): Promise<LoopbackListener> {
  const path = options.path ?? "/callback";
  const timeoutMs = options.timeoutMs ?? 300_000;
  let settle!: { resolve: (url: URL) => void; reject: (error: Error) => void };
  const callback = new Promise<URL>((resolve, reject) => (settle = { resolve, reject }));
  callback.catch(() => {}); // observed by whoever awaits it; never an unhandled rejection
  let done = false;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (done || url.pathname !== path || (!url.searchParams.has("code") && !url.searchParams.has("error"))) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    done = true;
    const ok = url.searchParams.has("code");
    response.writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8", connection: "close" }).end(PAGE(ok));
    settle.resolve(new URL(`${url.pathname}${url.search}`, redirectBase));
    void close();
  });
  const port = await listen(server, options.port ?? preferredPort ?? 0).catch(async (error: NodeJS.ErrnoException) => {
    // A remembered port that is taken now: any port will do (the client registers the new one).
    if (options.port === undefined && preferredPort !== undefined && error.code === "EADDRINUSE") return listen(server, 0);
    throw new AuthorizationError(`Cannot open the loopback redirect listener on 127.0.0.1:${options.port ?? 0}: ${error.message}`, { cause: error });
  });
  const redirectBase = `http://127.0.0.1:${port}`;
  const timer = setTimeout(() => {
    if (done) return;
    done = true;
    settle.reject(new AuthorizationError(`No authorization callback reached ${redirectBase}${path} within ${Math.round(timeoutMs / 1000)} s; authorize again`));
    void close();
  }, timeoutMs);
  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    clearTimeout(timer);
    if (!done) {
      done = true;
      settle.reject(new AuthorizationError("The loopback redirect listener was closed before the authorization callback"));
    }
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  }
  return { redirectUri: `${redirectBase}${path}`, callback, close };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}
