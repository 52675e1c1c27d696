/**
 * What the 2026 era needs to know about each tool, learned from `tools/list`: which arguments to mirror
 * into `Mcp-Param-*` headers, and whether a call may be sent again after its stream broke. Over HTTP,
 * tools whose header declarations break the rules are dropped from the list (with a warning): the era
 * forbids calling them.
 */
import { McpError } from "../../jsonrpc/errors.js";
import { isIdempotentTool, type ToolIdempotenceHints } from "../idempotence.js";
import type { Params, Result } from "./dialect.js";
import { headerDeclarations, paramHeaders, type HeaderParam } from "./param-headers.js";

interface ToolFact {
  headers: readonly HeaderParam[];
  /** The tool as listed: its annotations decide whether a call may be re-sent (isIdempotentTool). */
  tool: ToolIdempotenceHints;
}

interface ListedTool extends ToolIdempotenceHints {
  name?: unknown;
  inputSchema?: unknown;
}

export class ToolFacts {
  private facts = new Map<string, ToolFact>();

  constructor(
    private readonly http: boolean,
    private readonly warn: (error: Error) => void,
  ) {}

  /** Forgets everything (before listing the tools again). */
  reset(): void {
    this.facts = new Map();
  }

  /** Learns from one page of `tools/list`; returns the page without the tools that must be dropped. */
  learn(result: Result): Result {
    const list = result.tools;
    if (!Array.isArray(list)) return result;
    const kept: unknown[] = [];
    for (const tool of list as ListedTool[]) {
      if (typeof tool?.name !== "string") continue;
      const declarations = headerDeclarations(tool.inputSchema);
      if (!declarations.ok && this.http) {
        this.warn(new McpError(`Tool "${tool.name}" dropped from tools/list: ${declarations.problem} (protocol 2026-07-28 forbids calling it over HTTP)`));
        continue;
      }
      this.facts.set(tool.name, { headers: declarations.ok ? declarations.params : [], tool });
      kept.push(tool);
    }
    return kept.length === list.length ? result : { ...result, tools: kept };
  }

  /** Adds the `Mcp-Param-*` headers of a tools/call to `headers`. */
  addHeaders(name: string, params: Params | undefined, headers: Record<string, string>): void {
    const fact = this.facts.get(name);
    if (fact !== undefined && fact.headers.length > 0) paramHeaders(fact.headers, params?.arguments as Record<string, unknown> | undefined, headers);
  }

  /** Whether a call may be sent again, by the same rule the supervisor's fallback uses. */
  repeatable(name: string, callerOption: boolean | undefined): boolean {
    return isIdempotentTool(this.facts.get(name)?.tool, callerOption);
  }
}
