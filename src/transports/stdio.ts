/**
 * stdio: the server is a child process; messages are newline-delimited JSON on its stdin and stdout,
 * and stderr is its log (captured: events plus a bounded tail for error messages).
 *
 * Shutdown follows the spec: close stdin, wait; SIGTERM, wait; SIGKILL; each to the server's own process
 * group, so what a launcher started goes too (process-tree.ts). An exit nobody asked for closes the
 * transport with an error that carries the exit code, the signal and the tail of stderr, and only after
 * stdout has drained, so responses written just before the exit are still delivered. stdout ending while
 * the server runs on is the end of the connection too: nothing can arrive any more, so pending requests
 * fail at once and the server is stopped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { ConnectionClosedError, TransportError, type McpError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import { OversizeFrameError } from "../framing/oversize.js";
import { NdjsonDecoder, encodeNdjson } from "../framing/ndjson.js";
import { DEFAULT_MAX_PENDING_WRITE_BYTES, messageLimit, messageTooLarge, notReading } from "./message-limit.js";
import { POSIX_GROUPS, reapGroup, stopTree, type StopTimes } from "./process-tree.js";
import { minimalEnvironment } from "./stdio-env.js";
import { track, untrack } from "./stdio-reaper.js";
import { StderrTail } from "./stderr-tail.js";
import { deliver } from "./deliver.js";
import { SENT, type SendOptions, type Transport, type TransportSink } from "./transport.js";

export interface StdioTarget {
  command: string;
  args?: string[] | undefined;
  /** Added to the minimal inherited environment. */
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
}

export interface StdioTransportOptions extends StdioTarget {
  /** How much of stderr to keep for error messages (characters, default 8192). */
  stderrTailChars?: number | undefined;
  /** The longest line (one message) the server may write (default 16 MiB). */
  maxMessageBytes?: number | undefined;
  /** @deprecated The old name of `maxMessageBytes`. */
  maxFrameBytes?: number | undefined;
  /**
   * The most bytes that may wait to be written to the server (default 32 MiB). A server that stops
   * reading its stdin fills the pipe; past this, sends fail at once with an `OverloadError` instead of
   * holding every later request in memory until its deadline.
   */
  maxPendingWriteBytes?: number | undefined;
  /** How long after stdout ends the server may take to exit by itself before it is stopped (default 100 ms). */
  stdoutEndGraceMs?: number | undefined;
  shutdown?: {
    /** After closing stdin, how long to wait for the process to exit before SIGTERM (default 2000). */
    stdinCloseMs?: number | undefined;
    /** After SIGTERM, how long before SIGKILL (default 2000). */
    sigtermMs?: number | undefined;
  };
}

/** How long after its group is gone a server's pipes may stay open before they are let go of. */
const PIPE_GRACE_MS = 1000;
/**
 * Lines that are not JSON a server may write before its first message. A banner or a stray log line
 * is forgiven; this many and nothing else is not an MCP server (a wrong "command"), and waiting for
 * the start deadline would only hide that.
 */
const MAX_GARBAGE_LINES = 100;

export class StdioTransport implements Transport {
  readonly kind = "stdio" as const;
  readonly identity: string;
  private readonly options: StdioTransportOptions;
  private readonly maxMessageBytes: number;
  private readonly maxPendingWriteBytes: number;
  private readonly stopTimes: StopTimes;
  private child: ChildProcess | undefined;
  private sink: TransportSink | undefined;
  private decoder: NdjsonDecoder | undefined;
  private tail: StderrTail;
  private closing: Promise<void> | undefined;
  private closed = false;
  private exitHandler: ((error: McpError) => void) | undefined;

  constructor(options: StdioTransportOptions) {
    this.options = options;
    this.identity = `stdio:${JSON.stringify([options.command, options.args ?? [], options.cwd ?? ""])}`;
    this.tail = new StderrTail(options.stderrTailChars ?? 8192);
    this.maxMessageBytes = messageLimit(options.maxMessageBytes ?? options.maxFrameBytes);
    this.maxPendingWriteBytes = options.maxPendingWriteBytes ?? DEFAULT_MAX_PENDING_WRITE_BYTES;
    this.stopTimes = { stdinCloseMs: options.shutdown?.stdinCloseMs ?? 2000, sigtermMs: options.shutdown?.sigtermMs ?? 2000 };
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last part of what the server wrote to stderr. */
  get stderrTail(): string {
    return this.tail.toString();
  }

  private get displayName(): string {
    return [this.options.command, ...(this.options.args ?? [])].join(" ");
  }

  async start(sink: TransportSink): Promise<void> {
    if (this.closed) throw new ConnectionClosedError(`MCP server "${this.displayName}" transport is closed`, { delivered: false });
    this.sink = sink;
    await this.spawnChild();
  }

  private spawnChild(): Promise<void> {
    const { command, args = [], env, cwd } = this.options;
    const child = spawn(command, args, {
      cwd,
      env: minimalEnvironment(env),
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
      // Its own process group (POSIX), so stopping it stops what it started. The pipes still keep this
      // process's event loop alive exactly as before: nothing is unref'd.
      detached: POSIX_GROUPS,
    });
    this.child = child;
    this.tail = new StderrTail(this.options.stderrTailChars ?? 8192);
    const where = `MCP server "${this.displayName}"`;
    // Lines that were not JSON before the first message (-1 once one came), and the first of them.
    let garbage = 0;
    let firstGarbage = "";
    const decoder = new NdjsonDecoder({
      maxFrameBytes: this.maxMessageBytes,
      onValue: (value) => {
        garbage = -1;
        if (this.child === child) deliver(this.sink, value, where);
      },
      onError: (error) => {
        if (this.child !== child) return;
        this.sink?.error(error instanceof OversizeFrameError ? messageTooLarge(where, error.bytes, error.limit) : error);
        if (garbage < 0) return;
        if (garbage++ === 0) firstGarbage = error.sample;
        if (garbage === MAX_GARBAGE_LINES) void this.stop(notAnMcpServer(where, garbage, firstGarbage));
      },
      onSkipped: (id, error) => {
        if (this.child === child) this.sink?.failed?.(id, messageTooLarge(where, error.bytes, error.limit));
      },
    });
    this.decoder = decoder;
    child.stdout.on("data", (chunk: Buffer) => decoder.push(chunk));
    child.stdout.once("end", () => this.stdoutEnded(child));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      if (this.child !== child) return;
      this.tail.push(text);
      this.sink?.stderr?.(text);
    });
    // EPIPE when the server died: the exit handler reports it, with more to say.
    child.stdin.on("error", () => {});
    return new Promise<void>((resolve, reject) => {
      child.once("spawn", () => {
        track(child);
        child.once("exit", () => this.leaderExited(child));
        child.once("close", (code, signal) => this.exited(child, code, signal));
        resolve();
      });
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) return; // a later error of a running process: 'close' follows
        this.child = undefined;
        reject(this.spawnError(error));
      });
    });
  }

  private spawnError(error: NodeJS.ErrnoException): TransportError {
    const what = `Cannot start MCP server "${this.displayName}"`;
    const message =
      error.code === "ENOENT"
        ? `${what}: command not found (ENOENT). Check the "command" field and PATH${this.options.cwd ? `, and that cwd "${this.options.cwd}" exists` : ""}.`
        : error.code === "EACCES"
          ? `${what}: permission denied (EACCES). Is the file executable?`
          : `${what}: ${error.message}`;
    return new TransportError(message, { cause: error, delivered: false, retryable: true });
  }

  /**
   * The server's stdout ended. Normally it is exiting and 'close' follows with its exit code; one that
   * stays alive can never answer again, so after a short grace it is stopped and the transport closes.
   */
  private stdoutEnded(child: ChildProcess): void {
    if (this.child !== child || this.closing || this.closed) return;
    const timer = setTimeout(() => {
      if (this.child !== child || this.closing || this.closed || child.exitCode !== null || child.signalCode !== null) return;
      const stderr = this.tail.toString();
      const error = new TransportError(
        `MCP server "${this.displayName}" closed its stdout but is still running (pid ${child.pid}); stopped it${stderr ? `. Last stderr:\n${stderr}` : ""}`,
        { stderr, delivered: true, retryable: true },
      );
      if (this.exitHandler) {
        // An era probe is running: restart() replaces the process.
        this.exitHandler(error);
        return;
      }
      void this.stop(error);
    }, this.options.stdoutEndGraceMs ?? 100);
    child.once("exit", () => clearTimeout(timer));
  }

  /**
   * The server process itself exited. Its 'close' waits for the pipes, which a process it started may
   * hold open: that rest of its group is told to go, which lets 'close' (and the report) come; a holder
   * outside the group (a daemon) only costs us our ends of the pipes.
   */
  private leaderExited(child: ChildProcess): void {
    if (this.child !== child || this.closing || this.closed) return;
    void reapGroup(child.pid, this.stopTimes.sigtermMs).then(() => {
      if (this.child !== child) return;
      // Still no 'close' a while after the group is gone: a process outside it holds the pipes. Ours
      // are let go of instead (after the wait, so what the server wrote last is still read).
      const timer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPE_GRACE_MS);
      child.once("close", () => clearTimeout(timer));
    });
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    untrack(child);
    if (this.child !== child) return; // an old process replaced by restart()
    this.child = undefined;
    if (this.closing || this.closed) return;
    const stderr = this.tail.toString();
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const error = new ConnectionClosedError(
      `MCP server "${this.displayName}" ${how}${stderr ? `. Last stderr:\n${stderr}` : " (it wrote nothing to stderr)"}`,
      {
        exitCode: code,
        signal,
        stderr,
        delivered: true,
      },
    );
    if (this.exitHandler) {
      // Survivable (an era probe is running): the transport stays open for restart().
      this.exitHandler(error);
      return;
    }
    this.closed = true;
    const sink = this.sink;
    this.sink = undefined;
    sink?.close(error);
  }

  setExitHandler(handler: ((error: McpError) => void) | undefined): void {
    this.exitHandler = handler;
  }

  /**
   * Queues the message and writes everything queued in this tick with one write on the next tick:
   * under concurrency, dozens of requests leave together in one syscall (one write per request was
   * the client's largest cost). Backpressure: while the pipe is full, sends wait for `drain`.
   */
  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.closed) {
      return Promise.reject(
        new TransportError(`MCP server "${this.displayName}" is not running; message not sent`, { delivered: false, stderr: this.tail.toString() }),
      );
    }
    if (stdin.writableLength + this.outgoing.length > this.maxPendingWriteBytes)
      return Promise.reject(notReading(`MCP server "${this.displayName}" (its stdin)`, stdin.writableLength + this.outgoing.length, this.maxPendingWriteBytes));
    this.outgoing += encodeNdjson(message);
    // Flush early in ~2 KiB batches: one burst per tick would make client and server take turns
    // instead of working in parallel (measured: 2 KiB beat both per-message writes and per-tick batches).
    if (this.outgoing.length > 2048) this.flush();
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flush);
    }
    return this.drained ?? SENT;
  }

  private outgoing = "";
  private flushScheduled = false;
  /** Set while the pipe is full: resolves on `drain`. */
  private drained: Promise<void> | undefined;

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const text = this.outgoing;
    this.outgoing = "";
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || text === "") return;
    if (!stdin.write(text) && this.drained === undefined) {
      this.drained = new Promise<void>((resolve) =>
        stdin.once("drain", () => {
          this.drained = undefined;
          resolve();
        }),
      );
    }
  };

  /** Stops the process: stdin closed, then SIGTERM, then SIGKILL, to its whole group. Idempotent. */
  close(): Promise<void> {
    return this.stop(undefined);
  }

  /**
   * Stops the process. With an `error` the transport closes with it at once (pending requests must not
   * wait for the process to die); without, it closes cleanly once the process is gone.
   */
  private stop(error: McpError | undefined): Promise<void> {
    if (error !== undefined && !this.closed) {
      this.closed = true;
      const sink = this.sink;
      this.sink = undefined;
      sink?.close(error);
    }
    this.closing ??= this.shutdown().then(() => {
      this.closed = true;
      const sink = this.sink;
      this.sink = undefined;
      sink?.close();
    });
    return this.closing;
  }

  /** Replaces the process with a fresh one, keeping the sink (used after an era probe killed it). */
  async restart(): Promise<void> {
    const old = this.child;
    this.child = undefined;
    if (old) {
      await stopTree(old, { stdinCloseMs: 0, sigtermMs: this.stopTimes.sigtermMs });
      untrack(old);
    }
    this.decoder?.reset();
    await this.spawnChild();
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child) return;
    await stopTree(child, this.stopTimes);
    // It has exited; its 'close' (after the pipes drain) may come a moment later. Either way it is no
    // longer ours to reap.
    untrack(child);
    this.child = undefined;
  }
}

function notAnMcpServer(where: string, lines: number, first: string): TransportError {
  return new TransportError(
    `${where} wrote ${lines} lines that are not JSON-RPC and no message (the first: ${JSON.stringify(first)}): is it an MCP server? Check "command" and "args"; stopped it`,
    { delivered: true, retryable: true },
  );
}
