/**
 * A request the gateway waits on someone else to answer (a downstream client's answer to a server
 * request, streamed or in an input round): settled through the `Settle` it hands to `keep`, or, when
 * `signal` aborts first, rejected with what `abandoned` returns (which also forgets it). Settling
 * either way removes the abort listener, so a long-lived signal collects none.
 */
export interface Settle<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
}

export function pendingAnswer<T>(signal: AbortSignal, keep: (settle: Settle<T>) => void, abandoned: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abandoned());
    const settled =
      <V>(then: (value: V) => void) =>
      (value: V) => {
        signal.removeEventListener("abort", onAbort);
        then(value);
      };
    keep({ resolve: settled(resolve), reject: settled(reject) });
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
