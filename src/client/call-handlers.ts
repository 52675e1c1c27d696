/**
 * One call's own handlers for the server's sampling, elicitation and roots requests, in place of the
 * connection's (`CallToolOptions.handlers`). A gateway needs them: the request a server sends while it
 * runs a tool must reach the downstream client whose call it is, not whoever made the connection.
 *
 * They ride on the call's request as its `origin` (RequestOptions.origin), kept in the connection's
 * request table. A request or log that arrives on the call's own response stream (Streamable HTTP, the
 * spec's related messages: the transport delivers that stream as the request's, see
 * src/util/request-context.ts) or inside its results (2026 era, MRTR) finds them. A server request that
 * arrives elsewhere (a stdio server's stdout, the HTTP GET stream: a server that did not relate it to
 * the call) goes to them when the call is the one request the connection has pending, the only case
 * where the call that caused it is certain (RequestTable.originFor); otherwise the connection's own
 * handlers answer it.
 */
import type { LogParams } from "../connection/events.js";
import type { ClientOptions } from "./options.js";

/**
 * A call's handlers: any of `connect()`'s onSampling, onElicitation and onRoots, and `onLog` for the
 * log messages the server sends on the call's own stream (a Streamable HTTP server's related logs, the
 * 2026 era's per-request ones), or unrelated while the call is the one in flight, by the rule above.
 * Those logs also reach the connection's `log` event as before.
 */
export type CallHandlers = Pick<ClientOptions, "onSampling" | "onElicitation" | "onRoots"> & {
  onLog?: ((params: LogParams) => void) | undefined;
};
