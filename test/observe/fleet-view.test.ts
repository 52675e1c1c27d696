/**
 * The fleet view's own rules, without Redis: another member's summary is rebuilt field by field (junk
 * and oversized values never reach the page as sent), a failed or hung read keeps the last view and
 * says why, and concurrent refreshes share one read.
 */
import { describe, expect, it } from "vitest";
import { FleetWatch } from "../../src/observe/fleet-view.js";
import type { FleetMemberStatus } from "../../src/index.js";

const status = (member: string, summary: string | undefined, alive = true): FleetMemberStatus => ({ member, alive, lastBeatAgoMs: 400, summary });

describe("FleetWatch", () => {
  it("rebuilds each summary field by field: unknown fields dropped, wrong types defaulted, long strings cut", async () => {
    const summary = JSON.stringify({
      host: "h".repeat(500),
      pid: 42,
      startedAt: Date.now() - 5_000,
      env: { API_TOKEN: "sekret-never-shown" },
      servers: [{ name: "db", state: "up", inFlight: "3", callsPerSecond: 12, p50: 1.5, p99: 9, restarts: 1, circuit: "closed", url: "https://u:p@x" }, 7],
    });
    const watch = new FleetWatch({ member: "me:1:a", memberStatuses: async () => [status("me:1:a", summary), status("other:2:b", "{not json", false)] });
    await watch.refresh();
    const view = watch.current();
    expect(view.error).toBeUndefined();
    const [me, other] = view.members;
    expect(me).toMatchObject({ id: "me:1:a", self: true, pid: 42, alive: true, lastBeatAgoMs: 400 });
    expect(me.host).toHaveLength(120);
    expect(me.uptimeMs).toBeGreaterThanOrEqual(5_000);
    expect(me.servers).toEqual([
      {
        name: "db",
        state: "up",
        inFlight: 0,
        waiting: 0,
        paused: false,
        fleetLimit: undefined,
        restarts: 1,
        circuit: "closed",
        callsPerSecond: 12,
        p50: 1.5,
        p99: 9,
      },
      {
        name: "?",
        state: "?",
        inFlight: 0,
        waiting: 0,
        paused: false,
        fleetLimit: undefined,
        restarts: 0,
        circuit: "?",
        callsPerSecond: 0,
        p50: null,
        p99: null,
      },
    ]);
    expect(JSON.stringify(view)).not.toContain("sekret");
    expect(JSON.stringify(view)).not.toContain("u:p@");
    expect(other).toMatchObject({ id: "other:2:b", self: false, alive: false, servers: undefined, host: undefined, uptimeMs: undefined });
  });

  it("a failed read keeps the last members and names the failure; refreshes at once share one read", async () => {
    let reads = 0;
    let fail = false;
    const watch = new FleetWatch({
      memberStatuses: async () => {
        reads++;
        if (fail) throw new Error("Connection is closed.\nstack here");
        return [status("a:1:x", undefined)];
      },
    });
    await Promise.all([watch.refresh(), watch.refresh(), watch.refresh()]);
    expect(reads).toBe(1);
    fail = true;
    await watch.refresh();
    expect(watch.current()).toMatchObject({ error: "Connection is closed.", members: [{ id: "a:1:x" }] });
  });

  it("a read that hangs is given up within a second", async () => {
    const watch = new FleetWatch({ memberStatuses: () => new Promise<never>(() => {}) });
    const started = Date.now();
    await watch.refresh();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(watch.current().error).toMatch(/no answer from the fleet's Redis within \d+ ms/);
    expect(watch.current().members).toEqual([]);
  });
});
