/**
 * Allocates request ids for one connection. Numbers are cheapest to compare and to serialise; they stay
 * below 2^53 for any realistic lifetime (a million requests a second for 285 years).
 */
export class IdAllocator {
  private next = 0;
  allocate(): number {
    return this.next++;
  }
}
