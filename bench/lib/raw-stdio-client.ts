/**
 * The limit over stdio, the leanest honest loop: spawn the server, write one newline-delimited request
 * per call, split replies on newlines, one JSON.parse per reply, match by id. No MCP logic, no
 * timeouts, no validation. The params of a repeated call are serialised once (`repeat`).
 */
import { spawn, type ChildProcess } from "node:child_process";

export class RawStdioClient {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly waiting = new Map<number, (value: unknown) => void>();
  private buffered = "";

  constructor(command: string, args: string[], env?: Record<string, string>) {
    this.child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"], env: env && { ...process.env, ...env } });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => {
      const text = this.buffered.length === 0 ? chunk : this.buffered + chunk;
      let start = 0;
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        const message = JSON.parse(text.slice(start, newline));
        const resolve = this.waiting.get(message.id);
        if (resolve !== undefined) {
          this.waiting.delete(message.id);
          resolve(message.result);
        }
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      this.buffered = start === text.length ? "" : text.slice(start);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  request(method: string, params?: unknown): Promise<unknown> {
    return this.send(`,"method":"${method}","params":${JSON.stringify(params ?? {})}}\n`);
  }

  /** A call of `method` with the same params each time: only the id changes per request. */
  repeat(method: string, params: unknown): () => Promise<unknown> {
    const tail = `,"method":"${method}","params":${JSON.stringify(params)}}\n`;
    return () => this.send(tail);
  }

  private send(tail: string): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(`{"jsonrpc":"2.0","id":${id}${tail}`);
    });
  }

  async initialize(): Promise<void> {
    await this.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
    this.child.stdin!.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.stdin!.end();
      setTimeout(() => this.child.kill("SIGKILL"), 2000).unref();
    });
  }
}
