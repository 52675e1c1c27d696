/**
 * Resumable SSE streams (docs/guide/switchboard.md, "Limits and faults"), the reader's rules in isolation (behaviour over HTTP is in sse-streams.test.ts):
 * the duplicate filter is bounded, and the server's `retry` is clamped to [MIN_RETRY_MS, maxRetryMs].
 */
import { PassThrough } from "node:stream";
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_MAX_RETRY_MS,
  MIN_RETRY_MS,
  RECENT_EVENT_IDS,
  StreamCursor,
  readResumable,
  type ResumableReadOptions,
} from "../../src/transports/sse-reader.js";

describe("the duplicate filter", () => {
  it("remembers a bounded number of recent ids, and still drops a recent replay", () => {
    const cursor = new StreamCursor();
    for (let i = 0; i < 10 * RECENT_EVENT_IDS; i++) expect(cursor.accept(`e${i}`)).toBe(true);
    expect(cursor.remembered).toBe(RECENT_EVENT_IDS);
    expect(cursor.lastEventId).toBe(`e${10 * RECENT_EVENT_IDS - 1}`);
    expect(cursor.accept(`e${10 * RECENT_EVENT_IDS - 5}`)).toBe(false);
  });
});

describe("the server's retry", () => {
  afterEach(() => vi.useRealTimers());

  /** A stream that sends `retry` and an id, then ends; resolves with the delay before the re-open. */
  async function delayAfterRetry(retry: string): Promise<number> {
    vi.useFakeTimers();
    const first = Object.assign(new PassThrough(), { complete: true }) as unknown as IncomingMessage & PassThrough;
    let reopenedAt = -1;
    const started = Date.now();
    const options: ResumableReadOptions = {
      cursor: new StreamCursor(),
      maxMessageBytes: 1024,
      maxAttempts: 1,
      backoff: { initialMs: 100, maxMs: 5000, factor: 2, jitter: 0 },
      maxRetryMs: DEFAULT_MAX_RETRY_MS,
      resumable: true,
      reopenWithoutCursor: false,
      oversizeEndsStream: true,
      reopen: async () => {
        reopenedAt = Date.now() - started;
        return undefined;
      },
      live: () => true,
      deliver: () => {},
      warn: () => {},
      tooLarge: () => {
        throw new Error("not expected");
      },
    };
    const reading = readResumable(first, options);
    first.end(`retry: ${retry}\nid: 1\ndata: \n\n`);
    while (reopenedAt < 0) await vi.advanceTimersByTimeAsync(1000);
    await reading;
    return reopenedAt;
  }

  it("is clamped: a retry past 2^31 ms waits 60 s (not forever), a retry of 0 waits 100 ms", async () => {
    expect(await delayAfterRetry("4294967296000")).toBe(DEFAULT_MAX_RETRY_MS);
    expect(await delayAfterRetry("0")).toBe(MIN_RETRY_MS);
    expect(await delayAfterRetry("750")).toBe(750);
  });
});
