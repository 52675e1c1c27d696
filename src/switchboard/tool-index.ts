/**
 * Every exposed tool of every server by its qualified name (`server__tool`), kept current by each
 * server's listings (the board lists a server's tools whenever it comes up and on `list_changed`), so a
 * call resolves its name with one Map lookup, whether or not anyone called `listTools()`. Names the
 * index does not know (a server not listed yet, a tool the server has but did not list) are resolved by
 * parsing (namespacing.ts) instead.
 */
import type { Tool } from "../client/types.js";
import { isToolExposed, qualify } from "./namespacing.js";
import type { ServerRuntime } from "./server-runtime.js";

export interface IndexedTool {
  runtime: ServerRuntime;
  /** The tool's name on its server. */
  name: string;
  /** The tool as its server lists it. */
  tool: Tool;
}

export class ToolIndex {
  private readonly byName = new Map<string, IndexedTool>();

  constructor(private readonly separator: string) {}

  get(name: string): IndexedTool | undefined {
    return this.byName.get(name);
  }

  /** Every qualified name listed (for "did you mean"). */
  names(): IterableIterator<string> {
    return this.byName.keys();
  }

  /** `runtime` listed `tools`, replacing `previous`: its entries follow (filtered tools are left out). */
  replace(runtime: ServerRuntime, tools: readonly Tool[], previous: readonly Tool[] | undefined): void {
    if (previous !== undefined) {
      for (const tool of previous) {
        const name = qualify(runtime.name, tool.name, this.separator);
        if (this.byName.get(name)?.runtime === runtime) this.byName.delete(name);
      }
    }
    const filter = runtime.entry.tools;
    for (const tool of tools) {
      if (isToolExposed(tool, filter)) this.byName.set(qualify(runtime.name, tool.name, this.separator), { runtime, name: tool.name, tool });
    }
  }
}
