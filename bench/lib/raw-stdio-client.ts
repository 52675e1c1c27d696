/**
 * The limit: a raw JSON-RPC loop over stdio. Spawns the server, writes newline-delimited requests,
 * matches responses by id. No MCP logic, no timeouts, no validation.
 */
import { spawn, type ChildProcess } from "node:child_process";

export class RawStdioClient {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly waiting = new Map<number, (value: unknown) => void>();
  private buffered = "";

  constructor(command: string, args: string[]) {
    this.child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => {
      const text = this.buffered + chunk;
      let start = 0;
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        const message = JSON.parse(text.slice(start, newline));
        const resolve = this.waiting.get(message.id);
        if (resolve) {
          this.waiting.delete(message.id);
          resolve(message.result);
        }
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      this.buffered = text.slice(start);
    });
  }

  request(method: string, params?: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  async initialize(): Promise<void> {
    await this.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
    this.notify("notifications/initialized");
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.stdin!.end();
      setTimeout(() => this.child.kill("SIGKILL"), 2000).unref();
    });
  }
}
