/** A stand-in for a supervised server in machine tests: starts as planned, crashes on demand. */
import { TransportError } from "../../src/jsonrpc/errors.js";
import type { ChildWork } from "../../src/supervisor/child-machine.js";

/** A child whose starts succeed unless told otherwise, and which crashes on demand. */
export class FakeChild implements ChildWork {
  /** What each start does, in order; "ok" once the plan runs out. */
  plan: Array<"ok" | "hang" | Error> = [];
  /** Fake-clock times at which start() was called. */
  readonly startedAt: number[] = [];
  stops = 0;
  watching = 0;
  private exited: ((error: Error) => void) | undefined;

  start(): Promise<void> {
    this.startedAt.push(Date.now());
    const step = this.plan.shift() ?? "ok";
    if (step === "hang") return new Promise(() => {});
    return step === "ok" ? Promise.resolve() : Promise.reject(step);
  }

  watch(exited: (error: Error) => void): () => void {
    this.exited = exited;
    this.watching++;
    return () => {
      this.exited = undefined;
      this.watching--;
    };
  }

  stop(): Promise<void> {
    this.stops++;
    return Promise.resolve();
  }

  crash(error: Error = new TransportError("exited with code 1")): void {
    const exited = this.exited;
    if (!exited) throw new Error("the child is not running");
    exited(error);
  }

  /** The gaps between consecutive starts: the restart delays the machine chose. */
  delays(): number[] {
    return this.startedAt.slice(1).map((t, i) => t - this.startedAt[i]);
  }
}
