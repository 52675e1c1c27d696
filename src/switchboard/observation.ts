/**
 * The seam between a Switchboard and its live observer (src/observe/, a layer above): the board hands
 * every tool call to a tap, when one is set, and `board.observe()` asks the factory the observer layer
 * registered (the package entry imports it), so switchboard/ never imports the layer that watches it.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import type { Switchboard } from "./switchboard.js";

/** Sees each tool call of a board. `called` returns a promise that settles as `call` does, and never throws. */
export interface CallTap {
  called<T>(name: string, args: Record<string, unknown> | undefined, call: Promise<T>): Promise<T>;
  /**
   * The direct path (server-runtime.ts `direct`): the tap wraps the runtime's own two reactions instead
   * of adding a second `.then` to the call, so a watched call still costs one reaction. The returned
   * pair calls `ok` / `failed` and records what they return or throw (the error the caller sees); it is
   * used for one call only, and made by the tap without an allocation per call.
   */
  watch<T>(name: string, args: Record<string, unknown> | undefined, ok: (result: T) => T, failed: (error: unknown) => T): WatchedCall<T>;
}

/** The reactions a tap hands back for one call on the direct path. */
export interface WatchedCall<T> {
  readonly ok: (result: T) => T;
  readonly failed: (error: unknown) => T;
}

export interface ObserveOptions {
  /** The port to serve on (default 7331; 0 picks a free one). */
  port?: number | undefined;
  /** The address to bind (default 127.0.0.1). Anything else is reachable from elsewhere: a warning says so. */
  host?: string | undefined;
  /** Show each call's arguments and the tool content of agent traces (default false: names, timing, outcome). */
  captureToolContent?: boolean | undefined;
  /** Strings that must never reach the page (tokens, header values): replaced wherever they would appear. */
  redact?: readonly string[] | undefined;
}

/** A running observer page. */
export interface BoardObserver {
  /** `http://host:port/`. */
  readonly url: string;
  readonly port: number;
  /** Stops serving, ends every open page's stream and takes the tap off the board. */
  close(): Promise<void>;
}

type ObserverFactory = (board: Switchboard, options: ObserveOptions) => Promise<BoardObserver>;
let factory: ObserverFactory | undefined;

/** Called by src/observe/index.ts as it loads. */
export function provideObserver(make: ObserverFactory): void {
  factory = make;
}

export function startObserver(board: Switchboard, options: ObserveOptions): Promise<BoardObserver> {
  if (factory === undefined) {
    return Promise.reject(new ConfigError('board.observe() needs the observer layer: import the package entry ("mcp-switchboard"), which loads it'));
  }
  return factory(board, options);
}
