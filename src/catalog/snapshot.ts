/**
 * Catalog snapshots: every server's tool list as last seen, in one JSON file, so a lazy server's tools
 * are known (listed, searched, routed) without starting it. Written atomically — a temporary file in
 * the same directory, fsync, rename — so a reader or a crash mid-write sees the old file or the new
 * one, never half of either. Writes are coalesced: while one is under way, later changes wait and go
 * out together in the next.
 */
import { open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Tool } from "../client/types.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";

export interface CatalogServerEntry {
  tools: Tool[];
  /** When the list was seen, ISO 8601. */
  listedAt: string;
}

export interface CatalogSnapshot {
  version: 1;
  servers: Record<string, CatalogServerEntry>;
}

/** The snapshot in `file`; an empty one when the file does not exist. A file that is not a snapshot is a ConfigError. */
export async function readCatalogSnapshot(file: string): Promise<CatalogSnapshot> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, servers: {} };
    throw new ConfigError(`cannot read the catalog file ${file}: ${(error as Error).message}`, { field: "catalogFile", cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`the catalog file ${file} is not JSON: ${(error as Error).message}`, { field: "catalogFile", cause: error });
  }
  if (!isObject(parsed) || parsed.version !== 1 || !isObject(parsed.servers)) {
    throw new ConfigError(`the catalog file ${file} is not a catalog snapshot ({ "version": 1, "servers": { ... } })`, { field: "catalogFile" });
  }
  const servers: Record<string, CatalogServerEntry> = {};
  for (const [name, entry] of Object.entries(parsed.servers)) {
    if (!isObject(entry) || !Array.isArray(entry.tools) || !entry.tools.every((tool) => isObject(tool) && typeof tool.name === "string")) {
      throw new ConfigError(`the catalog file ${file}: servers.${name}.tools is not a list of tools`, { field: "catalogFile", server: name });
    }
    servers[name] = { tools: entry.tools as Tool[], listedAt: typeof entry.listedAt === "string" ? entry.listedAt : "" };
  }
  return { version: 1, servers };
}

let temporaries = 0;

/** Writes `text` to `file` atomically: a temporary file beside it, fsync, rename. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.${++temporaries}.tmp`);
  const handle = await open(temporary, "w", 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Keeps a snapshot file current: `update` a server's list, the file follows (one write at a time). */
export class SnapshotWriter {
  private writing: Promise<void> | undefined;
  private dirty = false;

  constructor(
    readonly file: string,
    private readonly snapshot: CatalogSnapshot,
    private readonly failed: (error: Error) => void,
  ) {}

  get servers(): Readonly<Record<string, CatalogServerEntry>> {
    return this.snapshot.servers;
  }

  update(server: string, tools: readonly Tool[]): void {
    this.snapshot.servers[server] = { tools: [...tools], listedAt: new Date().toISOString() };
    this.dirty = true;
    this.writing ??= this.drain();
  }

  /** Resolves once every update so far is on disk (or failed, reported). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        await writeFileAtomic(this.file, `${JSON.stringify(this.snapshot, null, 1)}\n`);
      }
    } catch (error) {
      this.failed(new Error(`writing the catalog file ${this.file} failed: ${(error as Error).message}`, { cause: error }));
    } finally {
      this.writing = undefined;
    }
  }
}
