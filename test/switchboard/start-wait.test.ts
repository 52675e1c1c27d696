/**
 * board.start()'s wait (start-wait.ts): it ends when every server that was starting is up, down or
 * stopped, or once its own start timeout passed, with one timer for the board and none left after.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ServerRuntime, ServerState } from "../../src/switchboard/server-runtime.js";
import { StartWait } from "../../src/switchboard/start-wait.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Stand-ins for runtimes: only `state` is read. */
const runtimes = (...states: ServerState[]) => states.map((state) => ({ state }) as ServerRuntime);

function track(wait: StartWait) {
  let done = false;
  void wait.done.then(() => (done = true));
  return () => done;
}

describe("StartWait", () => {
  it("ends once every starting server is up, down or has failed a start, whatever the order; settled ones are not waited for", async () => {
    const [a, b, c, d] = runtimes("starting", "restarting", "up", "starting");
    const wait = new StartWait([a, b, c, d], () => 60_000);
    const done = track(wait);
    expect(vi.getTimerCount()).toBe(1);
    a.state = "up";
    wait.update(a);
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(false);
    d.state = "starting"; // an event that changed nothing: still waited for
    wait.update(d);
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(false);
    d.state = "restarting"; // its start failed: it retries in the background, start() does not wait for that
    wait.update(d);
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(false);
    b.state = "down";
    wait.update(b);
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops waiting for each server at its own start timeout", async () => {
    const [fast, slow] = runtimes("starting", "starting");
    const wait = new StartWait([fast, slow], (runtime) => (runtime === fast ? 1_000 : 5_000));
    const done = track(wait);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done()).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(3_999);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("with nothing starting it is done at once and arms no timer", async () => {
    const wait = new StartWait(runtimes("up", "down", "disabled"), () => 1_000);
    expect(vi.getTimerCount()).toBe(0);
    await expect(wait.done).resolves.toBeUndefined();
  });
});
