import { describe, expect, it } from "vitest";
import { breakerOutcomeOf, CircuitBreaker, CircuitOpenError, type CircuitStateChange } from "../../src/supervisor/circuit-breaker.js";
import {
  ConnectionClosedError,
  EncodingError,
  McpError,
  OverloadError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  ToolError,
  TransportError,
} from "../../src/jsonrpc/errors.js";

function setup(failureThreshold = 3, cooldownMs = 1000) {
  const clock = { now: 0 };
  const changes: CircuitStateChange[] = [];
  const breaker = new CircuitBreaker({
    failureThreshold,
    cooldownMs,
    now: () => clock.now,
    onStateChange: (change) => changes.push(change),
  });
  return { clock, changes, breaker };
}

const lost = () => new TransportError("stream lost");

describe("CircuitBreaker", () => {
  it("starts closed and lets calls through", () => {
    const { breaker, changes } = setup();
    expect(breaker.state).toBe("closed");
    expect(breaker.allow()).toBe(true);
    expect(breaker.retryAfterMs()).toBe(0);
    expect(changes).toEqual([]);
  });

  it("opens after failureThreshold consecutive failures, not before", () => {
    const { breaker, changes } = setup(3);
    breaker.onFailure(lost());
    breaker.onFailure(lost());
    expect(breaker.state).toBe("closed");
    expect(breaker.consecutiveFailures).toBe(2);
    breaker.onFailure(lost());
    expect(breaker.state).toBe("open");
    expect(breaker.allow()).toBe(false);
    expect(changes).toEqual([{ from: "closed", to: "open", reason: "3 consecutive failures" }]);
  });

  it("a success in between resets the count", () => {
    const { breaker } = setup(2);
    breaker.onFailure(lost());
    breaker.onSuccess();
    breaker.onFailure(lost());
    expect(breaker.state).toBe("closed");
    breaker.onFailure(lost());
    expect(breaker.state).toBe("open");
  });

  it("stays open for cooldownMs, then lets exactly one probe through", () => {
    const { breaker, clock, changes } = setup(1, 1000);
    breaker.onFailure(lost());
    clock.now = 400;
    expect(breaker.retryAfterMs()).toBe(600);
    clock.now = 999;
    expect(breaker.allow()).toBe(false);
    clock.now = 1000;
    expect(breaker.state).toBe("half-open");
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(false);
    expect(breaker.allow()).toBe(false);
    expect(changes.map((c) => c.to)).toEqual(["open", "half-open"]);
    expect(changes[1].reason).toBe("cool-down of 1000 ms elapsed");
  });

  it("a successful probe closes the circuit", () => {
    const { breaker, clock, changes } = setup(1, 1000);
    breaker.onFailure(lost());
    clock.now = 1000;
    expect(breaker.allow()).toBe(true);
    breaker.onSuccess();
    expect(breaker.state).toBe("closed");
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(true);
    expect(changes.at(-1)).toEqual({ from: "half-open", to: "closed", reason: "probe succeeded" });
  });

  it("a failed probe re-opens it for another full cool-down", () => {
    const { breaker, clock, changes } = setup(3, 1000);
    for (let i = 0; i < 3; i++) breaker.onFailure(lost());
    clock.now = 1500;
    expect(breaker.allow()).toBe(true);
    breaker.onFailure(new RequestTimeoutError("slow", 100));
    expect(breaker.state).toBe("open");
    expect(changes.at(-1)).toEqual({ from: "half-open", to: "open", reason: "probe failed" });
    clock.now = 2499;
    expect(breaker.allow()).toBe(false);
    expect(breaker.retryAfterMs()).toBe(1);
    clock.now = 2500;
    expect(breaker.allow()).toBe(true);
  });

  it("a cancelled probe frees the probe slot and stays half-open", () => {
    const { breaker, clock } = setup(1, 10);
    breaker.onFailure(lost());
    clock.now = 10;
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(false);
    breaker.onFailure(new RequestCancelledError("caller aborted"));
    expect(breaker.state).toBe("half-open");
    expect(breaker.allow()).toBe(true);
  });

  it("an error answer from the server proves it alive: counts as success", () => {
    const { breaker, clock } = setup(2, 10);
    breaker.onFailure(lost());
    breaker.onFailure(new ProtocolError("bad params", -32602));
    breaker.onFailure(lost());
    expect(breaker.state).toBe("closed");
    breaker.onFailure(lost());
    expect(breaker.state).toBe("open");
    clock.now = 10;
    breaker.allow();
    breaker.onFailure(new ToolError("no such file", "read", {}));
    expect(breaker.state).toBe("closed");
  });

  it("local overload and cancellation are neutral", () => {
    const { breaker } = setup(1);
    breaker.onFailure(new OverloadError("queue full"));
    breaker.onFailure(new RequestCancelledError("aborted"));
    expect(breaker.state).toBe("closed");
    expect(breaker.consecutiveFailures).toBe(0);
  });

  it("a half-open probe whose params could not be encoded neither closes nor reopens it: nothing reached the server", () => {
    const { breaker, clock } = setup(1, 1000);
    breaker.onFailure(lost());
    clock.now = 1000;
    expect(breaker.allow()).toBe(true);
    breaker.onFailure(new EncodingError("tools/call cannot be sent"));
    expect(breaker.state).toBe("half-open");
  });

  it("ignores stragglers while open: neither late failures nor late successes change it", () => {
    const { breaker, clock, changes } = setup(1, 1000);
    breaker.onFailure(lost());
    clock.now = 500;
    breaker.onFailure(lost());
    breaker.onSuccess();
    expect(breaker.state).toBe("open");
    expect(breaker.retryAfterMs()).toBe(500);
    expect(changes).toHaveLength(1);
  });

  it("onFailure() without an error counts", () => {
    const { breaker } = setup(1);
    breaker.onFailure();
    expect(breaker.state).toBe("open");
  });

  it("reset closes it from any state", () => {
    const { breaker, changes } = setup(1);
    breaker.onFailure(lost());
    breaker.reset();
    expect(breaker.state).toBe("closed");
    expect(breaker.consecutiveFailures).toBe(0);
    expect(changes.at(-1)).toEqual({ from: "open", to: "closed", reason: "reset" });
    breaker.reset();
    expect(changes).toHaveLength(2);
  });

  it("cooldownMs 0 goes straight to half-open on the next look", () => {
    const { breaker } = setup(1, 0);
    breaker.onFailure(lost());
    expect(breaker.state).toBe("half-open");
  });

  it("rejects invalid policies", () => {
    expect(() => new CircuitBreaker({ failureThreshold: 0, cooldownMs: 1 })).toThrow("failureThreshold must be an integer >= 1, got 0");
    expect(() => new CircuitBreaker({ failureThreshold: 1, cooldownMs: -1 })).toThrow("cooldownMs must be a finite number >= 0, got -1");
  });
});

describe("breakerOutcomeOf", () => {
  it.each([
    ["TransportError", new TransportError("x"), "failure"],
    ["ConnectionClosedError", new ConnectionClosedError("x"), "failure"],
    ["RequestTimeoutError", new RequestTimeoutError("x", 10), "failure"],
    ["ProtocolError", new ProtocolError("x", -32603), "success"],
    ["ToolError", new ToolError("x", "t", {}), "success"],
    ["non-retryable McpError", new McpError("x"), "success"],
    ["RequestCancelledError", new RequestCancelledError("x"), "neutral"],
    ["OverloadError", new OverloadError("x"), "neutral"],
    ["EncodingError (a ProtocolError raised before sending)", new EncodingError("x"), "neutral"],
    ["plain Error", new Error("x"), "failure"],
    ["undefined", undefined, "failure"],
  ])("%s -> %s", (_label, error, outcome) => {
    expect(breakerOutcomeOf(error)).toBe(outcome);
  });
});

describe("CircuitOpenError", () => {
  it("is retryable, never delivered, and says when the next probe is", () => {
    const error = new CircuitOpenError("github", 1234.2);
    expect(error).toBeInstanceOf(McpError);
    expect(error.message).toBe('server "github": circuit open after repeated failures; next probe in 1235 ms');
    expect(error).toMatchObject({ retryable: true, delivered: false, server: "github", retryAfterMs: 1234.2, name: "CircuitOpenError" });
  });
});
