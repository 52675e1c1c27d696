/**
 * Per-server call rates and latency percentiles over the last minute, in one-second buckets. Recording a
 * call is a few array writes (a log-scale histogram, no sample kept), so an observer with no page open
 * costs a call almost nothing; percentiles are read from the histograms only when a page asks.
 */

/** Seconds of history kept (the sparklines' width). */
export const WINDOW_SECONDS = 60;
/** Histogram buckets per doubling of the latency: 8 keeps a percentile within ~4.5%. */
const PER_OCTAVE = 8;
/** 1 µs .. ~1 hour. */
const BUCKETS = 32 * PER_OCTAVE;

class Second {
  at = 0;
  count = 0;
  errors = 0;
  readonly histogram = new Uint32Array(BUCKETS);
  reset(at: number): void {
    this.at = at;
    this.count = 0;
    this.errors = 0;
    this.histogram.fill(0);
  }
}

/**
 * The bucket is floor(log2(µs) × PER_OCTAVE), read from the float's bits rather than Math.log2 (15 to
 * 20 ns a call on a loaded machine, 1 to 2 this way): the exponent is the octave, and the mantissa's top
 * SLICE_BITS bits pick the bucket within it from a table, off by at most 1/128 of an octave at a boundary.
 */
const SLICE_BITS = 7;
const SLICE_BUCKET = Uint8Array.from({ length: 1 << SLICE_BITS }, (_, slice) => Math.floor(Math.log2(1 + (slice + 0.5) / (1 << SLICE_BITS)) * PER_OCTAVE));
const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);
/** Which of the two words holds the sign, exponent and top of the mantissa (1 on little-endian machines). */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

function bucketOf(ms: number): number {
  const micros = ms * 1000;
  if (!(micros > 1)) return 0;
  float[0] = micros;
  const high = words[HIGH]!;
  const bucket = ((high >>> 20) - 1023) * PER_OCTAVE + SLICE_BUCKET[(high >>> (20 - SLICE_BITS)) & ((1 << SLICE_BITS) - 1)]!;
  return bucket < BUCKETS - 1 ? bucket : BUCKETS - 1;
}

/** The middle of a bucket, in ms. */
function valueOf(bucket: number): number {
  return 2 ** ((bucket + 0.5) / PER_OCTAVE) / 1000;
}

export interface Series {
  /** Calls finished in each of the last WINDOW_SECONDS whole seconds, oldest first. */
  rate: number[];
  /** Latency p50 and p99 of each of those seconds in ms (null: no call that second). */
  p50: Array<number | null>;
  p99: Array<number | null>;
  total: number;
  errors: number;
}

export class CallStats {
  private readonly seconds = Array.from({ length: WINDOW_SECONDS + 1 }, () => new Second());
  total = 0;
  errors = 0;

  /** The second calls are landing in, and when it ends: most calls skip the division and the slot lookup. */
  private current: Second | undefined;
  private currentEnds = -Infinity;

  record(nowMs: number, durationMs: number, failed: boolean): void {
    let second = this.current;
    if (second === undefined || nowMs >= this.currentEnds || nowMs < this.currentEnds - 1000) {
      const at = Math.floor(nowMs / 1000);
      second = this.slot(at);
      if (second.at !== at) second.reset(at);
      this.current = second;
      this.currentEnds = (at + 1) * 1000;
    }
    second.count++;
    second.histogram[bucketOf(durationMs)]!++;
    this.total++;
    if (failed) {
      second.errors++;
      this.errors++;
    }
  }

  private slot(at: number): Second {
    const length = this.seconds.length;
    return this.seconds[((at % length) + length) % length]!;
  }

  /** The whole second before `nowMs` (undefined: no call then). */
  last(nowMs: number): { rate: number; p50: number; p99: number } | undefined {
    const at = Math.floor(nowMs / 1000) - 1;
    const second = this.slot(at);
    if (second.at !== at || second.count === 0) return undefined;
    return { rate: second.count, p50: round(percentile(second, 0.5)), p99: round(percentile(second, 0.99)) };
  }

  /** The last WINDOW_SECONDS whole seconds before `nowMs` (the current, partial one is left out). */
  series(nowMs: number): Series {
    const now = Math.floor(nowMs / 1000);
    const rate: number[] = [];
    const p50: Array<number | null> = [];
    const p99: Array<number | null> = [];
    for (let at = now - WINDOW_SECONDS; at < now; at++) {
      const second = this.slot(at);
      const live = second.at === at && second.count > 0;
      rate.push(live ? second.count : 0);
      p50.push(live ? round(percentile(second, 0.5)) : null);
      p99.push(live ? round(percentile(second, 0.99)) : null);
    }
    return { rate, p50, p99, total: this.total, errors: this.errors };
  }
}

/** The last whole second before `nowMs`, as a fleet member's summary sends it. */
export function lastSecond(stats: CallStats | undefined, nowMs: number): { rate: number; p50: number | null; p99: number | null } {
  const series = stats?.last(nowMs);
  return series ?? { rate: 0, p50: null, p99: null };
}

function percentile(second: Second, q: number): number {
  const rank = Math.max(1, Math.ceil(q * second.count));
  let seen = 0;
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    seen += second.histogram[bucket]!;
    if (seen >= rank) return valueOf(bucket);
  }
  return valueOf(BUCKETS - 1);
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
