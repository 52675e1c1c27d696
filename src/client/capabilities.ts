/**
 * Which server capability each client-to-server method needs. Checked before sending, so calling what
 * the server never offered fails at once with a clear message instead of a round trip.
 */
import { MethodNotSupportedError } from "../jsonrpc/errors.js";

const REQUIRED: Record<string, readonly string[]> = {
  "tools/list": ["tools"],
  "tools/call": ["tools"],
  "resources/list": ["resources"],
  "resources/templates/list": ["resources"],
  "resources/read": ["resources"],
  "resources/subscribe": ["resources", "subscribe"],
  "resources/unsubscribe": ["resources", "subscribe"],
  "prompts/list": ["prompts"],
  "prompts/get": ["prompts"],
  "completion/complete": ["completions"],
  "logging/setLevel": ["logging"],
};

/** The error to throw when `capabilities` lack what `method` needs, else undefined. */
export function missingCapability(method: string, capabilities: Record<string, unknown> | undefined): MethodNotSupportedError | undefined {
  const path = REQUIRED[method];
  if (path === undefined) return undefined;
  let node: unknown = capabilities;
  for (const key of path) {
    if (typeof node !== "object" || node === null) break;
    const next = (node as Record<string, unknown>)[key];
    if (next === undefined || next === false || next === null) {
      node = undefined;
      break;
    }
    node = next;
  }
  if (node !== undefined && node !== null && node !== false) return undefined;
  const name = path.join(".");
  return new MethodNotSupportedError(
    `The server does not support ${method}: it did not declare the "${name}" capability (pass enforceCapabilities: false to send it anyway)`,
    { method, capability: name },
  );
}

/**
 * Whether a server may send a client's calls any request at all (sampling, elicitation, roots): it asks
 * only for what the client declared, and a 2026 client refuses the rest itself (src/connection/eras/mrtr.ts).
 * Only then does a call send its own handlers with its request (call-handlers.ts); otherwise a
 * server that asks anyway is refused, as by a client with no handlers.
 */
export function mayBeAsked(declared: Record<string, unknown>): boolean {
  return declared.sampling !== undefined || declared.elicitation !== undefined || declared.roots !== undefined;
}
