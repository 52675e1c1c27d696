/**
 * What every Streamable HTTP request carries besides its own headers: the caller's headers and auth (a
 * header provider is asked for each request, since tokens rotate; a static token is folded in once),
 * the session id the server gave (2025 era) and the negotiated protocol version.
 */
import type { IncomingMessage } from "node:http";
import { authHeaders, lowerCaseNames, type AuthOption } from "./auth.js";
import { headerValue } from "./http-client.js";

export class HttpSession {
  /** The server's Mcp-Session-Id, once it gave one. */
  id: string | undefined;
  /** Sent as MCP-Protocol-Version once negotiated. */
  protocolVersion: string | undefined;
  /** The 2026 era: no session id is stored or sent. */
  stateless = false;
  /** The headers that never change: the caller's, and a static bearer token, lower-cased once. */
  private readonly fixed: Record<string, string>;

  constructor(
    headers: Record<string, string> | undefined,
    private readonly auth: AuthOption | undefined,
  ) {
    this.fixed = lowerCaseNames(headers);
    if (auth !== undefined && typeof auth !== "function") this.fixed.authorization = `Bearer ${auth.token}`;
  }

  /** The headers of one request. `extra` names are lower case already (this layer's and the dialects'). */
  async headers(extra: Record<string, string>): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...this.fixed };
    if (typeof this.auth === "function") Object.assign(headers, await authHeaders(this.auth));
    if (this.id !== undefined) headers["mcp-session-id"] = this.id;
    if (this.protocolVersion !== undefined) headers["mcp-protocol-version"] = this.protocolVersion;
    return Object.assign(headers, extra);
  }

  /** Keeps the session id a response brings. */
  capture(response: IncomingMessage): void {
    if (this.stateless) return;
    const id = headerValue(response, "mcp-session-id");
    if (id !== undefined && id !== "") this.id = id;
  }
}
