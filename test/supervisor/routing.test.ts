import { describe, expect, it } from "vitest";
import {
  ConfigError,
  ConnectionClosedError,
  McpError,
  MethodNotSupportedError,
  OverloadError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  SessionExpiredError,
  ToolError,
  TransportError,
} from "../../src/jsonrpc/errors.js";
import { CircuitOpenError } from "../../src/supervisor/circuit-breaker.js";
import { fallbackVerdict, isIdempotentTool, routeOrder, shouldMoveToFallback } from "../../src/supervisor/routing.js";

const refused = new TransportError("connect ECONNREFUSED", { delivered: false });
const exited = new TransportError("process exited with code 1"); // delivered defaults to true: may have run
const timeout = new RequestTimeoutError("no answer in 100 ms", 100);

describe("shouldMoveToFallback", () => {
  // [label, error, moves when idempotent, moves when not idempotent]
  const table: Array<[string, unknown, boolean, boolean]> = [
    ["transport error before delivery", refused, true, true],
    ["transport error after delivery", exited, true, false],
    ["connection closed while pending", new ConnectionClosedError("closed"), true, false],
    ["connection closed before send", new ConnectionClosedError("closed", { delivered: false }), true, true],
    ["session expired before send", new SessionExpiredError("404", { delivered: false }), true, true],
    ["timeout after delivery", timeout, true, false],
    ["local overload", new OverloadError('server "a": 4 calls running and 0 waiting; limit reached'), true, true],
    ["circuit open", new CircuitOpenError("a", 100), true, true],
    ["invalid params (-32602)", new ProtocolError("bad", -32602), false, false],
    ["unknown tool", new ProtocolError("Unknown tool: x", -32602), false, false],
    ["internal error (-32603)", new ProtocolError("boom", -32603), false, false],
    ["protocol error marked retryable", new ProtocolError("busy", -32000, undefined, { retryable: true, delivered: false }), false, false],
    ["method not supported", new MethodNotSupportedError("no resources"), false, false],
    ["tool error (isError)", new ToolError("failed", "add", { isError: true }), false, false],
    ["caller cancelled", new RequestCancelledError("aborted", { delivered: false }), false, false],
    ["config error", new ConfigError("bad"), false, false],
    ["non-retryable McpError", new McpError("?"), false, false],
    ["plain Error", new Error("bug"), false, false],
    ["a thrown string", "oops", false, false],
  ];

  it.each(table)("%s: idempotent -> %s, not idempotent -> %s", (_label, error, idempotentMoves, otherMoves) => {
    expect(shouldMoveToFallback(error, { idempotent: true })).toBe(idempotentMoves);
    expect(shouldMoveToFallback(error, { idempotent: false })).toBe(otherMoves);
  });
});

describe("fallbackVerdict reasons", () => {
  it.each([
    [refused, true, { move: true, reason: "TransportError before the request was delivered" }],
    [timeout, true, { move: true, reason: "RequestTimeoutError after the request may have run; the call is idempotent" }],
    [timeout, false, { move: false, reason: "RequestTimeoutError after the request may have run; the call is not idempotent, so it is not re-sent" }],
    [new ProtocolError("bad", -32602), true, { move: false, reason: "the server rejected the request (error -32602)" }],
    [new ToolError("failed", "add", {}), true, { move: false, reason: "the tool reported an error" }],
    [new RequestCancelledError("x"), true, { move: false, reason: "the call was cancelled" }],
    [new ConfigError("x"), true, { move: false, reason: "ConfigError is not retryable" }],
    [new Error("x"), true, { move: false, reason: "not an MCP error" }],
  ])("%s (idempotent: %s)", (error, idempotent, verdict) => {
    expect(fallbackVerdict(error, { idempotent })).toEqual(verdict);
  });
});

describe("isIdempotentTool", () => {
  it.each([
    ["no annotations", { name: "t" }, undefined, false],
    ["unknown tool", undefined, undefined, false],
    ["readOnlyHint", { annotations: { readOnlyHint: true } }, undefined, true],
    ["idempotentHint", { annotations: { idempotentHint: true } }, undefined, true],
    ["both false", { annotations: { readOnlyHint: false, idempotentHint: false } }, undefined, false],
    ["destructive only", { annotations: { destructiveHint: true } }, undefined, false],
    ["caller says yes over no hints", { annotations: {} }, true, true],
    ["caller says no over readOnlyHint", { annotations: { readOnlyHint: true } }, false, false],
    ["caller says yes for an unknown tool", undefined, true, true],
  ])("%s", (_label, tool, callerOption, expected) => {
    expect(isIdempotentTool(tool as Parameters<typeof isIdempotentTool>[0], callerOption)).toBe(expected);
  });
});

describe("routeOrder", () => {
  it("puts the primary first and drops repeats", () => {
    expect(routeOrder("a", ["b", "c"])).toEqual(["a", "b", "c"]);
    expect(routeOrder("a", ["b", "a", "b", "c"])).toEqual(["a", "b", "c"]);
    expect(routeOrder("a", [])).toEqual(["a"]);
  });
});
