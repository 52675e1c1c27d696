/**
 * What every Streamable HTTP request carries besides its own headers: the caller's headers and a static
 * token (folded in once; per-request auth, a header function or an AuthProvider, is added where the
 * request is sent: http-auth.ts), the session id the server gave (2025 era) and the negotiated
 * protocol version.
 */
import { fixedHeaders, type AuthOption } from "./auth.js";
import { firstValue, type HttpHeaders } from "./undici-exchange.js";

export class HttpSession {
  /** The server's Mcp-Session-Id, once it gave one. */
  id: string | undefined;
  /** Sent as MCP-Protocol-Version once negotiated. */
  protocolVersion: string | undefined;
  /** The 2026 era: no session id is stored or sent. */
  stateless = false;
  /** The headers that never change: the caller's, and a static bearer token, lower-cased once. */
  private readonly fixed: Record<string, string>;

  constructor(headers: Record<string, string> | undefined, auth: AuthOption | undefined) {
    this.fixed = fixedHeaders(headers, auth);
  }

  /** The headers of one request. `extra` names are lower case already (this layer's and the dialects'). */
  headers(extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.fixed };
    if (this.id !== undefined) headers["mcp-session-id"] = this.id;
    if (this.protocolVersion !== undefined) headers["mcp-protocol-version"] = this.protocolVersion;
    return Object.assign(headers, extra);
  }

  /**
   * The headers of a POST, one object per session and protocol version (json-post.ts caches what it
   * sends by this object): building them per request was a measurable share of a small call.
   */
  postHeaders(): Record<string, string> {
    if (this.post === undefined || this.postId !== this.id || this.postVersion !== this.protocolVersion) {
      this.post = this.headers({ "content-type": "application/json", accept: "application/json, text/event-stream" });
      this.postId = this.id;
      this.postVersion = this.protocolVersion;
    }
    return this.post;
  }

  private post: Record<string, string> | undefined;
  private postId: string | undefined;
  private postVersion: string | undefined;

  /** Keeps the session id a response brings. */
  capture(response: { headers: HttpHeaders }): void {
    if (this.stateless) return;
    const id = firstValue(response.headers, "mcp-session-id");
    if (id !== undefined && id !== "") this.id = id;
  }
}
