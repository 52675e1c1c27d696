/**
 * Tool pinning: the answer to a "rug pull", where a server changes a tool's description or schema after
 * the user approved it. Each tool's fingerprint is a SHA-256 over a canonical JSON of what the model
 * sees of it (name, title, description, input and output schemas, annotations; key order ignored). The
 * first fingerprint seen is pinned; a later listing with another one quarantines the tool until
 * `approve`, and a listing that brings the pinned definition back releases it. With a file, pins are
 * kept across restarts (written whole to a temporary file, then renamed, so a crash never leaves half).
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Tool } from "../client/types.js";
import { ConfigError, McpError } from "../jsonrpc/errors.js";

/** `true`, or where to keep the pins and what to do with tools never seen before. */
export type PinToolsOption = boolean | { file?: string | undefined; newTools?: "pin" | "hold" | undefined };

/** A tool whose definition changed after it was pinned: refused until `approveToolChange`. Not retryable. */
export class ToolChangedError extends McpError {
  /** The qualified tool name. */
  readonly tool: string;
  constructor(tool: string, server: string) {
    super(`Tool "${tool}" changed since it was approved (its description, schema or annotations differ); it is held until board.approveToolChange("${tool}")`, {
      retryable: false,
      delivered: false,
      server,
    });
    this.tool = tool;
  }
}

export interface ToolChangedEvent {
  server: string;
  /** The qualified name. */
  name: string;
  /** The approved definition; undefined for a new tool held by `newTools: "hold"`. */
  previous: Tool | undefined;
  current: Tool;
}

interface Pin {
  fingerprint: string;
  definition: Tool;
}

interface Held extends Pin {
  previous: Tool | undefined;
  /** Raised by a principal's listing (admitSeen): the board's own listing does not release it; an approval does. */
  seen?: boolean;
}

const FILE_VERSION = 1;

/** What the model sees of a tool, in a canonical form (sorted keys, no undefined members). */
export function toolFingerprint(tool: Tool): string {
  const seen = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  };
  return createHash("sha256").update(canonicalJson(seen)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export class ToolPins {
  private readonly pins = new Map<string, Map<string, Pin>>();
  private readonly held = new Map<string, Map<string, Held>>();
  private readonly file: string | undefined;
  private readonly holdNew: boolean;

  constructor(
    option: PinToolsOption,
    private readonly onChange: (event: { server: string; tool: string; previous: Tool | undefined; current: Tool }) => void,
    /** A principal's listing held a tool (admitSeen): the board's own view of `server` must drop it too. */
    private readonly onSeenHold: (server: string) => void = () => {},
  ) {
    if (typeof option !== "boolean" && (option === null || typeof option !== "object")) {
      throw new ConfigError(`expected true, false or { file?, newTools? }, found ${JSON.stringify(option)}`, { field: "pinTools" });
    }
    const settings = typeof option === "object" ? option : {};
    if (settings.file !== undefined && (typeof settings.file !== "string" || settings.file === "")) {
      throw new ConfigError(`expected a file path, found ${JSON.stringify(settings.file)}`, { field: "pinTools.file" });
    }
    if (settings.newTools !== undefined && settings.newTools !== "pin" && settings.newTools !== "hold") {
      throw new ConfigError(`expected "pin" or "hold", found ${JSON.stringify(settings.newTools)}`, { field: "pinTools.newTools" });
    }
    this.file = settings.file;
    this.holdNew = settings.newTools === "hold";
    if (this.file !== undefined) this.load(this.file);
  }

  /** A server listed `tools`: pins new ones, quarantines changed ones; returns the tools that may be used. */
  admit(server: string, tools: readonly Tool[]): Tool[] {
    const pins = this.mapOf(this.pins, server);
    const held = this.mapOf(this.held, server);
    const admitted: Tool[] = [];
    let dirty = false;
    for (const tool of tools) {
      const fingerprint = toolFingerprint(tool);
      const pin = pins.get(tool.name);
      if (pin?.fingerprint === fingerprint || (pin === undefined && !this.holdNew)) {
        if (pin === undefined) {
          pins.set(tool.name, { fingerprint, definition: tool });
          dirty = true;
        }
        if (held.get(tool.name)?.seen === true) continue; // another view saw it changed: held until approved
        held.delete(tool.name);
        admitted.push(tool);
        continue;
      }
      if (held.get(tool.name)?.fingerprint === fingerprint) continue; // already held and reported
      held.set(tool.name, { fingerprint, definition: tool, previous: pin?.definition });
      this.onChange({ server, tool: tool.name, previous: pin?.definition, current: tool });
    }
    if (dirty) this.save();
    return admitted;
  }

  /**
   * A principal's own listing of a server: recorded like the board's (a tool first seen here is pinned,
   * a changed one held for every view), but it releases nothing: one view showing the pinned definition
   * says nothing of what another was shown. Returns the tools that may be used.
   */
  admitSeen(server: string, tools: readonly Tool[]): Tool[] {
    const pins = this.mapOf(this.pins, server);
    const held = this.mapOf(this.held, server);
    const admitted: Tool[] = [];
    let dirty = false;
    let heldNow = false;
    for (const tool of tools) {
      const fingerprint = toolFingerprint(tool);
      const pin = pins.get(tool.name);
      if (pin === undefined && !this.holdNew) {
        pins.set(tool.name, { fingerprint, definition: tool });
        dirty = true;
      }
      if (pin === undefined ? !this.holdNew : pin.fingerprint === fingerprint) {
        if (!held.has(tool.name)) admitted.push(tool);
        continue;
      }
      if (held.get(tool.name)?.fingerprint === fingerprint) continue;
      held.set(tool.name, { fingerprint, definition: tool, previous: pin?.definition, seen: true });
      this.onChange({ server, tool: tool.name, previous: pin?.definition, current: tool });
      heldNow = true;
    }
    if (dirty) this.save();
    if (heldNow) this.onSeenHold(server);
    return admitted;
  }

  isHeld(server: string, tool: string): boolean {
    return this.held.get(server)?.has(tool) === true;
  }

  /**
   * Accepts the held definition of `tool` as the new pin; false when it was not held, "seen" when a
   * principal's listing saw the change (the board's own listing may predate it: list again).
   */
  approve(server: string, tool: string): boolean | "seen" {
    const held = this.held.get(server)?.get(tool);
    if (held === undefined) return false;
    this.mapOf(this.pins, server).set(tool, { fingerprint: held.fingerprint, definition: held.definition });
    this.held.get(server)!.delete(tool);
    this.save();
    return held.seen === true ? "seen" : true;
  }

  private mapOf<T>(maps: Map<string, Map<string, T>>, server: string): Map<string, T> {
    let map = maps.get(server);
    if (map === undefined) maps.set(server, (map = new Map<string, T>()));
    return map;
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new ConfigError(`cannot read the pins file: ${(error as Error).message}`, { field: "pinTools.file", file });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`the pins file is not JSON: ${(error as Error).message}`, { field: "pinTools.file", file });
    }
    const servers = (parsed as { servers?: unknown }).servers;
    if ((parsed as { version?: unknown }).version !== FILE_VERSION || servers === null || typeof servers !== "object") {
      throw new ConfigError(`expected { "version": ${FILE_VERSION}, "servers": { ... } }`, { field: "pinTools.file", file });
    }
    for (const [server, tools] of Object.entries(servers as Record<string, Record<string, Pin>>)) {
      const pins = this.mapOf(this.pins, server);
      for (const [tool, pin] of Object.entries(tools)) {
        if (typeof pin?.fingerprint !== "string") throw new ConfigError(`the pin of ${server}/${tool} has no fingerprint`, { field: "pinTools.file", file });
        pins.set(tool, pin);
      }
    }
  }

  private save(): void {
    if (this.file === undefined) return;
    const servers: Record<string, Record<string, Pin>> = {};
    for (const [server, pins] of this.pins) servers[server] = Object.fromEntries(pins);
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ version: FILE_VERSION, servers }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}
