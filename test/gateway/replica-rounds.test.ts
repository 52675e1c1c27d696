/**
 * The input-round relay between replicas (src/gateway/replica-rounds.ts) over an in-memory stand-in for
 * the fleet's channel, where a replica can fall silent at will: a retry nobody holds is undefined after
 * the claim window, a held one gets the holder's outcome, and a holder that stops speaking mid-round
 * (died) fails the retry with a message saying so instead of leaving the client waiting forever; an
 * asking replica that stops answering (died with the client's retry) gets its round cancelled where it
 * runs, not left running with nobody waiting for it.
 */
import { describe, expect, it } from "vitest";
import type { GatewaySessionShare } from "../../src/fleet/gateway-sessions.js";
import type { LogParams } from "../../src/connection/events.js";
import type { Downstream } from "../../src/gateway/downstream.js";
import { InputRounds, type RelayedRound } from "../../src/gateway/input-required.js";
import { relayRounds } from "../../src/gateway/replica-rounds.js";

/**
 * Replicas on the fleet's channels: one all hear, one of each replica's own (its tag). `silence(i)`
 * drops everything replica i sends from then on; `heard[i]` counts the notes replica i received.
 */
function channel() {
  const listeners: Array<{ own: string; heard: (note: string) => void; index: number }> = [];
  const silenced = new Set<number>();
  const heard: number[] = [];
  const share = (index: number) =>
    ({
      relay: (note: string, to?: string) => {
        if (silenced.has(index)) return;
        for (const listener of listeners)
          if (to === undefined || listener.own === to)
            queueMicrotask(() => {
              heard[listener.index] = (heard[listener.index] ?? 0) + 1;
              listener.heard(note);
            });
      },
      listenRounds: (heard: (note: string) => void, own: string) => void listeners.push({ own, heard, index }),
    }) as unknown as GatewaySessionShare;
  return { share, heard, silence: (index: number) => silenced.add(index) };
}

/** Just what the relay uses of InputRounds: `relay` set on it, `resumeRelayed` answered by `hold`. */
function rounds(
  hold: (round: RelayedRound, signal: AbortSignal, logTo?: (params: LogParams) => void) => Promise<Record<string, unknown>> | undefined = () => undefined,
) {
  return {
    relay: undefined,
    resumeRelayed: (round: RelayedRound, signal: AbortSignal, logTo?: (params: LogParams) => void) => hold(round, signal, logTo),
  } as unknown as InputRounds;
}

/** Replica 0 asks, replica 1 holds a round that runs until its signal aborts; `cancelled()` says whether it did. */
function roundRunningUntilCancelled(share: (index: number) => GatewaySessionShare) {
  const asker = rounds();
  let cancelled = false;
  const holder = rounds(
    (_, signal) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => {
          cancelled = true;
          reject(new Error("cancelled"));
        }),
      ),
  );
  relayRounds(share(0), asker, timing);
  relayRounds(share(1), holder, timing);
  return { asker, cancelled: () => cancelled };
}

const round: RelayedRound = { state: "s1", principal: undefined, what: "tools/call ask", inputResponses: {} };
const timing = { claimMs: 100, aliveMs: 40 };

describe("input rounds relayed between replicas", () => {
  it("a state no replica holds is undefined once the claim window passes", async () => {
    const { share } = channel();
    const [a, b] = [rounds(), rounds()];
    relayRounds(share(0), a, timing);
    relayRounds(share(1), b, timing);
    expect(await a.relay!(round, new AbortController().signal)).toBeUndefined();
  });

  it("a held state gets the holder's outcome, however long its round takes while it says it is alive", async () => {
    const { share } = channel();
    const asker = rounds();
    const holder = rounds((r) => (r.state === "s1" ? new Promise((resolve) => setTimeout(() => resolve({ content: [{ text: "done" }] }), 300)) : undefined));
    relayRounds(share(0), asker, timing);
    relayRounds(share(1), holder, timing);
    expect(await asker.relay!(round, new AbortController().signal)).toEqual({ content: [{ text: "done" }] });
  });

  it("a holder that falls silent mid-round fails the retry, naming the call", async () => {
    const { share, silence } = channel();
    const asker = rounds();
    const holder = rounds(() => {
      setTimeout(() => silence(1), 20); // claimed, then gone: a replica killed while the call ran
      return new Promise(() => {});
    });
    relayRounds(share(0), asker, timing);
    relayRounds(share(1), holder, timing);
    await expect(asker.relay!(round, new AbortController().signal)).rejects.toThrow(/replica running tools\/call ask stopped answering/);
  });

  it("the client closing its retry cancels the round where it runs, and the retry rejects as cancelled", async () => {
    const { share } = channel();
    const { asker, cancelled } = roundRunningUntilCancelled(share);
    const client = new AbortController();
    const relayed = asker.relay!(round, client.signal);
    await new Promise((resolve) => setTimeout(resolve, timing.aliveMs * 2)); // claimed, and running
    client.abort();
    await expect(relayed).rejects.toThrow(/tools\/call ask was cancelled by the client/);
    // At once, by the cancel note: not two alive notes later, when the holder would give up on its own.
    await new Promise((resolve) => setTimeout(resolve, timing.aliveMs / 4));
    expect(cancelled()).toBe(true);
  });

  it("an asking replica that falls silent mid-round gets the round cancelled where it runs", async () => {
    const { share, silence } = channel();
    const { asker, cancelled } = roundRunningUntilCancelled(share);
    const client = new AbortController();
    const relayed = asker.relay!(round, client.signal).catch(() => undefined);
    // Answered alive notes keep the round running however long it takes.
    await new Promise((resolve) => setTimeout(resolve, timing.aliveMs * 5));
    expect(cancelled()).toBe(false);
    silence(0); // the asker is gone, with the client's retry
    await new Promise((resolve) => setTimeout(resolve, timing.aliveMs * 5));
    expect(cancelled()).toBe(true);
    client.abort();
    await relayed;
  });

  it("a state that names its holder is asked of that replica alone; a third replica hears nothing", async () => {
    const { share, heard } = channel();
    const [asker, bystander] = [rounds(), rounds()];
    const holder = rounds((r) => (r.state === state ? Promise.resolve({ content: [{ text: "held here" }] }) : undefined));
    relayRounds(share(0), asker, timing);
    relayRounds(share(1), holder, timing);
    relayRounds(share(2), bystander, timing);
    const state = `${holder.tag!}.abc`;
    expect(InputRounds.holderOf(state)).toBe(holder.tag);
    expect(await asker.relay!({ ...round, state }, new AbortController().signal)).toEqual({ content: [{ text: "held here" }] });
    expect(heard[1]).toBe(1); // the ask
    expect(heard[0]).toBe(2); // held, done
    expect(heard[2]).toBeUndefined();
  });

  it("a state naming a replica that is gone reaches nobody and is undefined after the claim window", async () => {
    const { share, heard } = channel();
    const [a, b] = [rounds(), rounds()];
    relayRounds(share(0), a, timing);
    relayRounds(share(1), b, timing);
    expect(await a.relay!({ ...round, state: "gone.abc" }, new AbortController().signal)).toBeUndefined();
    expect(heard).toEqual([]);
  });

  it("a state this replica gave and no longer holds is -32602 at once, not after the claim window", async () => {
    const { share } = channel();
    const local = new InputRounds();
    relayRounds(share(0), local, { claimMs: 5_000, aliveMs: 40 });
    const downstream = { principal: undefined, capabilities: {} } as unknown as Downstream;
    const started = performance.now();
    const retry = local.call("tools/call ask", { requestState: `${local.tag!}.used`, inputResponses: {} }, downstream, new AbortController().signal, () =>
      Promise.resolve({}),
    );
    await expect(retry).rejects.toMatchObject({ code: -32602 });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("a relayed round's logs come back to the asker's retry, and only when it asked for them", async () => {
    const { share } = channel();
    const asker = rounds();
    const offered: boolean[] = [];
    const holder = rounds((_, __, logTo) => {
      offered.push(logTo !== undefined);
      logTo?.({ level: "warning", data: "from the holder" });
      return Promise.resolve({ content: [] });
    });
    relayRounds(share(0), asker, timing);
    relayRounds(share(1), holder, timing);
    const state = `${holder.tag!}.abc`;
    const heard: LogParams[] = [];
    await asker.relay!({ ...round, state }, new AbortController().signal, (params) => heard.push(params));
    await asker.relay!({ ...round, state }, new AbortController().signal);
    expect(heard).toEqual([{ level: "warning", data: "from the holder" }]);
    expect(offered).toEqual([true, false]);
  });
});
