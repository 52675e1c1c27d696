/** JSON-RPC and MCP error codes the client recognises by name. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * The first of JSON-RPC's implementation-defined server errors (-32000 down to -32099): what 2025
   * servers answer for "not initialized", "no session" and generic failures.
   */
  ServerError: -32000,
  /** 2025 era: resource not found (2026 uses InvalidParams). */
  ResourceNotFound: -32002,
  /** 2026-07-28: HTTP headers disagree with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the requested protocol version is not supported; `data.supported` lists those that are. */
  UnsupportedProtocolVersion: -32022,
} as const;
export type ErrorCodeName = keyof typeof ErrorCode;
