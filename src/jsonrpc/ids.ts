import type { JsonRpcId } from "./messages.js";

/**
 * Allocates request ids for one connection. Numbers are cheapest to compare and to serialise; they stay
 * below 2^53 for any realistic lifetime (a million requests a second for 285 years).
 */
export class IdAllocator {
  private next = 0;
  allocate(): number {
    return this.next++;
  }
  /** How many ids were handed out: useful in tests and stats. */
  get issued(): number {
    return this.next;
  }
}

/** Ids arrive from the wire as string or number; the spec compares them type-exactly, and so do we. */
export function sameId(a: JsonRpcId | null | undefined, b: JsonRpcId | null | undefined): boolean {
  return a === b;
}
