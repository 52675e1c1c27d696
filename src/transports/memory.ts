/**
 * Two linked in-process transports. Messages cross in a microtask, as objects (no serialisation), so
 * tests and benchmarks measure the client and not a wire. `structuredClone` is off by default for speed;
 * turn it on to catch code that mutates a message after sending it.
 */
import { ConnectionClosedError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import type { SendOptions, Transport, TransportSink } from "./transport.js";

export interface MemoryPairOptions {
  clone?: boolean;
}

export class MemoryTransport implements Transport {
  readonly kind = "memory" as const;
  readonly identity: string;
  peer!: MemoryTransport;
  private sink: TransportSink | undefined;
  private closed = false;
  /** Messages that arrived before start(): delivered on start, in order. */
  private early: JsonRpcMessage[] = [];

  constructor(
    name: string,
    private readonly clone: boolean,
  ) {
    this.identity = `memory:${name}`;
  }

  async start(sink: TransportSink): Promise<void> {
    if (this.closed) throw new ConnectionClosedError("Memory transport is closed", { delivered: false });
    this.sink = sink;
    const early = this.early;
    this.early = [];
    for (const message of early) sink.message(message);
  }

  async send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (this.closed) throw new ConnectionClosedError("Memory transport is closed", { delivered: false });
    const copy = this.clone ? structuredClone(message) : message;
    queueMicrotask(() => this.peer.receive(copy));
  }

  private receive(message: JsonRpcMessage): void {
    if (this.closed) return;
    if (this.sink) this.sink.message(message);
    else this.early.push(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.early = [];
    const sink = this.sink;
    this.sink = undefined;
    sink?.close();
    // The other side sees the drop as unexpected, as a socket peer would.
    queueMicrotask(() => this.peer.peerClosed());
  }

  private peerClosed(): void {
    if (this.closed) return;
    this.closed = true;
    const sink = this.sink;
    this.sink = undefined;
    sink?.close(new ConnectionClosedError("The other end of the memory transport closed", { delivered: true }));
  }
}

let pairs = 0;

/** Returns `[clientSide, serverSide]`. Each pair is its own server identity (for the era verdict cache). */
export function memoryPair(options: MemoryPairOptions = {}): [MemoryTransport, MemoryTransport] {
  const pair = ++pairs;
  const a = new MemoryTransport(`client-${pair}`, options.clone ?? false);
  const b = new MemoryTransport(`server-${pair}`, options.clone ?? false);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
