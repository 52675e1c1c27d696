/**
 * Races of lazy servers, made deterministic with a transport whose close we hold open: (a) a lazy
 * server as a fallback (or as the primary next to a fallback that is up) while it is asleep: the
 * routed call starts it and is answered there; (b) a call that arrives while a lazy server is going to
 * sleep (its idleMs expired and its process is being stopped): the call is answered, the server is
 * started once more, and nothing is left behind; and idleMs expiring while a call waits for a lazy
 * server that crashed (kill -9) and is in its restart backoff: the server stays awake for the call. Real stdio echo servers: the process count is checked
 * after every test (test/switchboard/board-helpers.ts).
 */
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "../../src/client/types.js";
import { StdioTransport } from "../../src/transports/stdio.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { waitFor } from "../helpers/processes.js";
import { boardsAfterEach, echoServer, fastRestart, node, pidOf } from "../switchboard/board-helpers.js";

const board = boardsAfterEach();
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** A gate a test opens by hand. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Stdio echo servers whose close the test holds: `closing` resolves when a close began, and the close
 * goes on (`phase: "before"`: the process is still running; `"after"`: it has ended) only once `release`
 * opens. `starts` counts the processes made.
 */
function heldEchoServers(phase: "before" | "after") {
  const held = { starts: 0, closing: gate(), release: gate() };
  class HeldClose extends StdioTransport {
    override async close(): Promise<void> {
      if (phase === "after") await super.close();
      held.closing.open();
      await held.release.promise;
      return super.close();
    }
  }
  const transport = () => {
    held.starts++;
    return new HeldClose({ command: node, args: [echoServer] });
  };
  return { held, transport };
}

describe("a lazy server asleep, reached as a fallback", () => {
  it("a call whose primary is down starts the sleeping lazy fallback and is answered there, every time it sleeps", async () => {
    const lazy = heldEchoServers("before");
    lazy.held.release.open(); // no race here: closes go through
    const b = board({
      servers: {
        primary: { command: "node-x-does-not-exist", fallbacks: ["spare"], restart: fastRestart },
        spare: { transport: lazy.transport, lazy: true, idleMs: 100 },
      },
    });
    const fallbacks: string[] = [];
    b.on("fallback", (event) => fallbacks.push(`${event.from}->${event.to}`));
    await b.start();
    expect(b.status()).toMatchObject({ primary: { state: "down" }, spare: { state: "idle" } });
    expect(lazy.held.starts).toBe(0);

    expect(text(await b.callTool("primary__echo", { text: "first" }))).toBe("first");
    expect(lazy.held.starts).toBe(1);
    expect(fallbacks).toEqual(["primary->spare"]);
    await waitFor(() => b.status().spare.state === "idle" && liveProcessCount() === 0, 15_000);

    // Asleep again: the next call wakes it again, once however many arrive together.
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => b.callTool("primary__echo", { text: `again ${i}` })));
    expect(results.map(text)).toEqual(Array.from({ length: 5 }, (_, i) => `again ${i}`));
    expect(lazy.held.starts).toBe(2);
    expect(b.status().spare.state).toBe("up");
  });

  it("a lazy fallback ahead of an eager one is started, not skipped as if it were away", async () => {
    const lazy = heldEchoServers("before");
    lazy.held.release.open();
    const b = board({
      servers: {
        primary: { command: "node-x-does-not-exist", fallbacks: ["spare", "last"], restart: fastRestart },
        spare: { transport: lazy.transport, lazy: true },
        last: { command: node, args: [echoServer] },
      },
    });
    const fallbacks: string[] = [];
    b.on("fallback", (event) => fallbacks.push(`${event.from}->${event.to}`));
    await b.start();
    expect(text(await b.callTool("primary__echo", { text: "to the spare" }))).toBe("to the spare");
    expect(fallbacks).toEqual(["primary->spare"]);
    expect(lazy.held.starts).toBe(1);
  });

  it("a lazy primary with a fallback that is up: the first call starts the primary and runs there", async () => {
    const lazy = heldEchoServers("before");
    lazy.held.release.open();
    const b = board({
      servers: {
        main: { transport: lazy.transport, lazy: true, fallbacks: ["backup"] },
        backup: { command: node, args: [echoServer] },
      },
    });
    const fallbacks: string[] = [];
    b.on("fallback", (event) => fallbacks.push(`${event.from}->${event.to}`));
    await b.start();
    expect(b.status()).toMatchObject({ main: { state: "idle" }, backup: { state: "up" } });
    expect(text(await b.callTool("main__echo", { text: "on main" }))).toBe("on main");
    expect(fallbacks).toEqual([]);
    expect(lazy.held.starts).toBe(1);
    expect(b.status().main.state).toBe("up");
  });
});

describe("a call racing a lazy server going to sleep", () => {
  it.each(["before", "after"] as const)("calls that arrive while it stops (%s its process ends) are answered by one new start", async (phase) => {
    const lazy = heldEchoServers(phase);
    const b = board({ servers: { lazy: { transport: lazy.transport, lazy: true, idleMs: 50 } } });
    await b.start();
    expect(text(await b.callTool("lazy__echo", { text: "wake" }))).toBe("wake");
    expect(lazy.held.starts).toBe(1);

    // idleMs expired: the server is going to sleep, its close held open.
    await lazy.held.closing.promise;
    expect(b.status().lazy.state).toBe("idle");
    expect(liveProcessCount()).toBe(phase === "before" ? 1 : 0);
    // The calls reach the catalog synchronously (no hook awaits before routing): they are in before the stop ends.
    const calls = Array.from({ length: 3 }, (_, i) => b.callTool("lazy__echo", { text: `racing ${i}` }, { timeoutMs: 15_000 }));
    expect(lazy.held.starts).toBe(1);

    lazy.held.release.open();
    expect((await Promise.all(calls)).map(text)).toEqual(["racing 0", "racing 1", "racing 2"]);
    expect(lazy.held.starts).toBe(2);
    expect(b.status().lazy.state).toBe("up");
    expect(liveProcessCount()).toBe(1);
  });

  it("the board stopped while a call waits on a lazy server going to sleep: the call fails, nothing restarts, no process is left", async () => {
    const lazy = heldEchoServers("before");
    const b = board({ servers: { lazy: { transport: lazy.transport, lazy: true, idleMs: 50 } } });
    await b.start();
    await b.callTool("lazy__echo", { text: "wake" });
    await lazy.held.closing.promise;
    const call = b.callTool("lazy__echo", { text: "too late" }, { timeoutMs: 15_000 });
    const stopped = b.stop();
    lazy.held.release.open();
    await stopped;
    await expect(call).rejects.toThrow(/server "lazy" was stopped/);
    expect(lazy.held.starts).toBe(1);
    expect(b.status().lazy.state).toBe("stopped");
    expect(liveProcessCount()).toBe(0);
  });
});

describe("idleMs and calls waiting for a lazy server", () => {
  it("a call waiting out a crashed lazy server's restart backoff keeps it awake past idleMs, and is answered", async () => {
    const lazy = heldEchoServers("before");
    lazy.held.release.open();
    // The backoff (2 s) outlasts two idle periods (300 ms): the idle check runs while the call waits.
    const restart = { maxRestarts: 5, withinMs: 60_000, backoff: { initialMs: 2000, maxMs: 2000, factor: 2, jitter: 0 } };
    const b = board({ servers: { lazy: { transport: lazy.transport, lazy: true, idleMs: 300, restart } } });
    await b.start();
    expect(text(await b.callTool("lazy__echo", { text: "wake" }))).toBe("wake");
    process.kill(pidOf(b, "lazy"), "SIGKILL");
    await waitFor(() => b.status().lazy.state === "restarting");
    const answer = await b.callTool("lazy__echo", { text: "after the crash" }, { timeoutMs: 20_000 });
    expect(text(answer)).toBe("after the crash");
    expect(lazy.held.starts).toBe(2);
    expect(b.status().lazy).toMatchObject({ state: "up", restarts: 1 });
  });
});

describe("board.restart of a lazy server", () => {
  it("brings back a lazy server that went down (its own supervisor gets the restart), and starts one asleep", async () => {
    const lazy = heldEchoServers("before");
    lazy.held.release.open();
    const b = board({ servers: { lazy: { transport: lazy.transport, lazy: true, restart: { maxRestarts: 0, withinMs: 60_000 } } } });
    await b.start();
    b.restart("lazy"); // asleep: started
    await waitFor(() => b.status().lazy.state === "up");
    expect(lazy.held.starts).toBe(1);
    process.kill(pidOf(b, "lazy"), "SIGKILL");
    await waitFor(() => b.status().lazy.state === "down");
    await expect(b.callTool("lazy__echo", { text: "x" })).rejects.toThrow(/server "lazy" is down/);
    b.restart("lazy");
    await waitFor(() => b.status().lazy.state === "up");
    expect(text(await b.callTool("lazy__echo", { text: "back" }))).toBe("back");
    expect(lazy.held.starts).toBe(2);
  });
});
