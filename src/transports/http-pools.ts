/**
 * The undici pools of one Streamable HTTP transport, each with its own job so that no traffic takes the
 * sockets of another: `requests` for the POSTs that carry requests (sized by `maxSockets`, a
 * Switchboard entry's `maxConcurrency` plus headroom), `side` for notifications, responses and the
 * session DELETE, and `stream` for the standalone GET stream, which stays open for the session's life.
 * Before the stream had its own pool it held one of the request sockets: an entry with
 * `maxConcurrency: 1` hung every call until its timeout.
 */
import type { Pool } from "undici";
import type { UrlPolicy } from "../auth/url-policy.js";
import { createPool } from "./undici-exchange.js";

/** Sockets for POSTs that carry no request, and the DELETE: apart, so a server sitting on them never starves requests. */
const SIDE_SOCKETS = 8;
/** The GET stream: two, since a re-opened stream may start before the socket of the one that broke is let go. */
const STREAM_SOCKETS = 2;

export class HttpPools {
  readonly requests: Pool;
  readonly side: Pool;
  #stream: Pool | undefined;

  constructor(
    private readonly url: URL,
    maxSockets: number | undefined,
    private readonly policy: UrlPolicy | undefined,
  ) {
    this.requests = createPool(url, maxSockets, policy);
    this.side = createPool(url, SIDE_SOCKETS, policy);
  }

  /** Made when the stream is first opened: a server without one (405) costs no pool. */
  get stream(): Pool {
    return (this.#stream ??= createPool(this.url, STREAM_SOCKETS, this.policy));
  }

  async destroy(): Promise<void> {
    await Promise.all([this.requests.destroy(), this.side.destroy(), this.#stream?.destroy()]);
  }
}
