/** What the observer tests share: reading the page's event stream and waiting on its snapshots. */
import type { Snapshot } from "../../src/observe/index.js";

/** An open `/events` stream: every snapshot received so far, and every byte. */
export class EventStream {
  readonly snapshots: Snapshot[] = [];
  raw = "";
  private readonly controller = new AbortController();
  private readonly done: Promise<void>;

  constructor(url: string) {
    this.done = this.read(url).catch(() => {});
  }

  private async read(url: string): Promise<void> {
    const response = await fetch(new URL("events", url), { signal: this.controller.signal });
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      this.raw += text;
      buffer += text;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n");
        if (data) this.snapshots.push(JSON.parse(data) as Snapshot);
      }
    }
  }

  get last(): Snapshot | undefined {
    return this.snapshots[this.snapshots.length - 1];
  }

  /** Waits (bounded) for a snapshot that satisfies `test`. */
  async until(test: (snapshot: Snapshot) => boolean, timeoutMs = 5000): Promise<Snapshot> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.snapshots.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no snapshot matched within ${timeoutMs} ms; last: ${JSON.stringify(this.last)?.slice(0, 400)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.done;
  }
}

export async function text(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(new URL(path, url), { headers });
  return { status: response.status, body: await response.text(), headers: response.headers };
}
