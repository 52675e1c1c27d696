import { describe, expect, it } from "vitest";
import { OverloadError, RequestCancelledError, TransportError } from "../../src/jsonrpc/errors.js";
import { ConcurrencyLimiter } from "../../src/supervisor/limiter.js";

/** A call the test finishes by hand. */
function deferred<T = string>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("ConcurrencyLimiter", () => {
  it("runs at most maxConcurrency calls at once, the rest in FIFO order", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 2, maxQueue: 10 });
    const gates = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const results = gates.map((gate, i) =>
      limiter.run(() => {
        started.push(i);
        return gate.promise;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect([limiter.pending, limiter.size]).toEqual([2, 3]);
    gates[1].resolve("one");
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve("zero");
    gates[2].resolve("two");
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3].resolve("three");
    gates[4].resolve("four");
    expect(await Promise.all(results)).toEqual(["zero", "one", "two", "three", "four"]);
    expect([limiter.pending, limiter.size]).toEqual([0, 0]);
  });

  it("fails at once with OverloadError when the slots and the queue are full", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 2, maxQueue: 1 });
    const gate = deferred();
    const accepted = [limiter.run(() => gate.promise), limiter.run(() => gate.promise), limiter.run(() => gate.promise)];
    let ran = false;
    const refused = limiter.run(() => {
      ran = true;
      return "never";
    });
    await expect(refused).rejects.toThrow(OverloadError);
    await expect(refused).rejects.toHaveProperty("message", 'server "math": 2 calls running and 1 waiting; limit reached');
    await expect(refused).rejects.toMatchObject({ retryable: true, delivered: false, server: "math" });
    expect(ran).toBe(false);
    gate.resolve("ok");
    await Promise.all(accepted);
    // Room again once the work drains.
    await expect(limiter.run(() => "again")).resolves.toBe("again");
  });

  it("with maxQueue 0 fails fast as soon as every slot is busy (singular wording)", async () => {
    const limiter = new ConcurrencyLimiter({ server: "db", maxConcurrency: 1, maxQueue: 0 });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    await expect(limiter.run(() => "x")).rejects.toHaveProperty("message", 'server "db": 1 call running and 0 waiting; limit reached');
    gate.resolve("done");
    await expect(first).resolves.toBe("done");
  });

  it("never lets the total exceed maxConcurrency + maxQueue, even between one call ending and the next starting", async () => {
    const limiter = new ConcurrencyLimiter({ server: "s", maxConcurrency: 2, maxQueue: 2 });
    let running = 0;
    let maxRunning = 0;
    const overloads: unknown[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      calls.push(
        limiter
          .run(async () => {
            running++;
            maxRunning = Math.max(maxRunning, running);
            await tick();
            running--;
          })
          .catch((error: unknown) => overloads.push(error)),
      );
      expect(limiter.pending + limiter.size).toBeLessThanOrEqual(4);
      if (i % 3 === 0) await Promise.resolve();
    }
    await Promise.all(calls);
    expect(maxRunning).toBe(2);
    expect(overloads.length).toBeGreaterThan(0);
    expect(overloads.every((error) => error instanceof OverloadError)).toBe(true);
  });

  it("an aborted waiting call leaves the queue at once and rejects with RequestCancelledError", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 1, maxQueue: 1 });
    const gate = deferred();
    const running = limiter.run(() => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(
      () => {
        ran = true;
        return "never";
      },
      { signal: controller.signal },
    );
    expect(limiter.size).toBe(1);
    controller.abort(new Error("user gave up"));
    expect(limiter.size).toBe(0);
    await expect(waiting).rejects.toThrow(RequestCancelledError);
    await expect(waiting).rejects.toHaveProperty("message", 'server "math": call cancelled while waiting for a free slot');
    await expect(waiting).rejects.toMatchObject({ delivered: false, cause: new Error("user gave up") });
    // Its place is free for another caller.
    const next = limiter.run(() => "next");
    gate.resolve("first");
    await expect(running).resolves.toBe("first");
    await expect(next).resolves.toBe("next");
    expect(ran).toBe(false);
  });

  it("an already aborted signal is refused without queueing", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 1, maxQueue: 1 });
    const call = limiter.run(() => "x", { signal: AbortSignal.abort() });
    expect(limiter.size + limiter.pending).toBe(0);
    await expect(call).rejects.toThrow(RequestCancelledError);
  });

  it("aborting after a call started does not abandon it: fn owns cancellation from then on", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 1, maxQueue: 0 });
    const controller = new AbortController();
    const gate = deferred();
    const call = limiter.run(() => gate.promise, { signal: controller.signal });
    await tick();
    controller.abort();
    expect(limiter.pending).toBe(1);
    gate.resolve("finished anyway");
    await expect(call).resolves.toBe("finished anyway");
    expect(limiter.pending).toBe(0);
  });

  it("clear(error) rejects every waiting call and leaves running ones alone", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 1, maxQueue: 5 });
    const gate = deferred();
    const running = limiter.run(() => gate.promise);
    let ran = 0;
    const waiting = [1, 2, 3].map(() => limiter.run(() => ran++));
    const error = new TransportError('server "math" exited with code 1');
    limiter.clear(error);
    expect(limiter.size).toBe(0);
    for (const call of waiting) await expect(call).rejects.toBe(error);
    gate.resolve("still fine");
    await expect(running).resolves.toBe("still fine");
    await tick();
    expect(ran).toBe(0);
  });

  it("clear(error) also detaches from the callers' signals", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 1, maxQueue: 5 });
    const gate = deferred();
    void limiter.run(() => gate.promise);
    const controller = new AbortController();
    const waiting = limiter.run(() => "x", { signal: controller.signal });
    const error = new Error("stopping");
    limiter.clear(error);
    controller.abort(); // too late to matter: the call already failed with `error`
    await expect(waiting).rejects.toBe(error);
    gate.resolve("done");
  });

  it("a throwing fn rejects its call and frees its slot", async () => {
    const limiter = new ConcurrencyLimiter({ server: "math", maxConcurrency: 1, maxQueue: 0 });
    await expect(
      limiter.run(() => {
        throw new Error("sync boom");
      }),
    ).rejects.toThrow("sync boom");
    await expect(limiter.run(() => Promise.reject(new Error("async boom")))).rejects.toThrow("async boom");
    expect(limiter.pending).toBe(0);
    await expect(limiter.run(() => 42)).resolves.toBe(42);
  });

  it("Infinity means no limit", async () => {
    const limiter = new ConcurrencyLimiter({ server: "s", maxConcurrency: Infinity, maxQueue: 0 });
    const gate = deferred();
    const calls = Array.from({ length: 500 }, () => limiter.run(() => gate.promise));
    expect(limiter.pending).toBe(500);
    gate.resolve("ok");
    await Promise.all(calls);
  });

  it("rejects invalid limits", () => {
    expect(() => new ConcurrencyLimiter({ server: "s", maxConcurrency: 0, maxQueue: 0 })).toThrow("maxConcurrency must be an integer >= 1 or Infinity, got 0");
    expect(() => new ConcurrencyLimiter({ server: "s", maxConcurrency: 1, maxQueue: -1 })).toThrow("maxQueue must be an integer >= 0 or Infinity, got -1");
  });
});
