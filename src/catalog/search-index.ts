/**
 * Full-text search over the tools of many servers, with MiniSearch (BM25 with prefix and fuzzy
 * matching). Measured against FlexSearch and Orama on the same documents, term processing and query
 * set (bench/search-libraries.ts; numbers and the why in docs/guide/catalogs.md): it ranks best
 * (recall@5 and MRR), and its extra tenth of a millisecond per search is nothing next to a model call.
 * It is also small and dependency-free, synchronous (a search is a plain call, no promise), gives a
 * score per hit, and removes single documents, which a `list_changed` needs.
 * Each tool is one document: the words of its name, title, description, parameter names and
 * descriptions, its server's name and instructions, and the WordNet synonyms of its name, title and
 * description words (src/catalog/synonyms.ts), each a field with its own weight.
 */
import MiniSearch, { type Options } from "minisearch";
import type { Tool } from "../client/types.js";
import { isObject } from "../util/guards.js";
import { synonymText } from "./synonyms.js";
import { splitWords, termOf } from "./terms.js";

export interface ToolSearchHit {
  /** The qualified name (`server__tool`), as `listTools()` gives it. */
  name: string;
  server: string;
  description: string | undefined;
  /** Relevance, higher is better; comparable within one search only. */
  score: number;
}

export interface ToolSearchOptions {
  /** At most this many hits (default 5). */
  limit?: number | undefined;
  /**
   * Drops hits scoring below this fraction of the best hit's score (default 0.25),
   * so a query that one tool answers does not load four weak matches too. 0 keeps every hit.
   */
  cutoff?: number | undefined;
}

/**
 * The default cut-off: a hit scoring under a quarter of the best one is dropped. Chosen on the tuning
 * queries (test/catalog/queries.ts), where the right tool's score never fell under 0.35 of the top
 * one's while the weak matches sat far lower; docs/guide/catalogs.md gives the numbers.
 */
export const RELEVANCE_CUTOFF = 0.25;

/** A server whose tools a search could not see: down, restarting, or not listed yet. */
export interface UnavailableServer {
  /** The server's name, as in the config. */
  server: string;
  /** The server's state (`down`, `restarting`, `starting`, ...). */
  state: string;
  /** Why, when known: the reason it is down or its last error. */
  reason: string | undefined;
}

/** A search's hits, best first, and the servers it could not see (`unavailable`, not enumerable). */
export interface ToolSearchResults extends Array<ToolSearchHit> {
  /** Servers whose tools were not searched (down, restarting, still starting); empty when none. */
  readonly unavailable: readonly UnavailableServer[];
}

/** `hits` marked with the servers the search could not see (a non-enumerable property: the array stays a plain list of hits). */
export function withUnavailable(hits: ToolSearchHit[], unavailable: readonly UnavailableServer[]): ToolSearchResults {
  return Object.defineProperty(hits, "unavailable", { value: unavailable, enumerable: false }) as ToolSearchResults;
}

/** The servers a search could not see, from its results (none for a plain list of hits). */
export function unavailableOf(hits: readonly unknown[]): readonly UnavailableServer[] {
  return (hits as Partial<Pick<ToolSearchResults, "unavailable">>).unavailable ?? [];
}

/**
 * One line per server a search could not see, as the model reads it beside the hits (the `search_tools`
 * text of runAgent and the bridges, Anthropic's client-side search), so that a model does not conclude
 * a tool is missing when its server is down.
 */
export function unavailableLines(hits: readonly unknown[]): string[] {
  return unavailableOf(hits).map(({ server, state, reason }) =>
    state === "starting"
      ? `Server ${server} is still starting: its tools are not searched yet.`
      : `Server ${server} is ${state}${reason === undefined ? "" : ` (${reason})`}: its tools are not searched.`,
  );
}

/**
 * Field weights, tuned on test/catalog/queries.ts; `synonyms` (the WordNet synonyms of the name, title
 * and description, src/catalog/synonyms.ts) weighs 0.5, the first value tried, which the tuning half
 * kept (recall@5 the same, MRR up).
 */
export const SEARCH_BOOSTS = { name: 3, title: 2, description: 1.5, params: 0.6, server: 0.8, synonyms: 0.5 } as const;

/** One tool as a search document: the text of each field (bench/search-libraries.ts indexes the same). */
export interface ToolDocument {
  id: string;
  server: string;
  name: string;
  title: string;
  description: string;
  params: string;
  serverText: string;
}

/** What ToolSearchIndex indexes: the document and the WordNet synonyms of its name, title and description. */
type IndexedTool = ToolDocument & { synonyms: string };

export const FIELDS = ["name", "title", "description", "params", "serverText"] as const;

/** The index's MiniSearch options; bench/search-libraries.ts builds variants (another stemmer, more fields) from them. */
export function searchIndexOptions(processTerm: (word: string) => string | null = termOf) {
  return {
    fields: [...FIELDS, "synonyms"] as string[],
    storeFields: ["server"],
    tokenize: splitWords,
    processTerm,
    autoVacuum: { minDirtCount: 50, minDirtFactor: 0.2, batchSize: 1000, batchWait: 0 },
    searchOptions: {
      boost: {
        name: SEARCH_BOOSTS.name,
        title: SEARCH_BOOSTS.title,
        description: SEARCH_BOOSTS.description,
        params: SEARCH_BOOSTS.params,
        serverText: SEARCH_BOOSTS.server,
        synonyms: SEARCH_BOOSTS.synonyms,
      },
      prefix: (term: string) => term.length >= 3,
      fuzzy: (term: string) => (term.length >= 6 ? 0.2 : false),
      combineWith: "OR",
    },
  } satisfies Options<IndexedTool>;
}

export class ToolSearchIndex {
  private readonly index = new MiniSearch<IndexedTool>(searchIndexOptions());
  /** Per server, the ids it has in the index and their descriptions. */
  private readonly servers = new Map<string, Map<string, string | undefined>>();

  /** Every tool of `server` (qualified `name` next to the tool): replaces what the server had. */
  setServer(server: string, tools: ReadonlyArray<{ name: string; tool: Tool }>, instructions?: string): void {
    this.removeServer(server);
    const serverText = `${server} ${instructions ?? ""}`;
    const ids = new Map<string, string | undefined>();
    const documents: IndexedTool[] = [];
    for (const { name, tool } of tools) {
      if (ids.has(name)) continue;
      ids.set(name, tool.description);
      const document = toolDocument(name, server, tool, serverText);
      documents.push({ ...document, synonyms: synonymText(`${document.name} ${document.title} ${document.description}`) });
    }
    this.index.addAll(documents);
    this.servers.set(server, ids);
  }

  removeServer(server: string): void {
    const ids = this.servers.get(server);
    if (ids === undefined) return;
    for (const id of ids.keys()) this.index.discard(id);
    this.servers.delete(server);
  }

  /** The hit for a tool by its qualified name (score 0), undefined when it is not indexed. */
  hitOf(name: string): ToolSearchHit | undefined {
    for (const [server, ids] of this.servers) if (ids.has(name)) return { name, server, description: ids.get(name), score: 0 };
    return undefined;
  }

  get size(): number {
    return this.index.documentCount;
  }

  /** The best matches, best first. An empty query or one of stop words only finds nothing. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = options.limit ?? 5;
    const cutoff = options.cutoff ?? RELEVANCE_CUTOFF;
    if (typeof query !== "string" || query.trim() === "") return [];
    const hits: ToolSearchHit[] = [];
    for (const result of this.index.search(query)) {
      // Results come best first: the first one under the cut-off ends the list.
      if (hits.length >= limit || (hits.length > 0 && result.score < hits[0]!.score * cutoff)) break;
      const server = result.server as string;
      hits.push({ name: result.id as string, server, description: this.servers.get(server)?.get(result.id as string), score: result.score });
    }
    return hits;
  }
}

/** The document of one tool: `id` its qualified name, `serverText` its server's name and instructions. */
export function toolDocument(id: string, server: string, tool: Tool, serverText: string): ToolDocument {
  return {
    id,
    server,
    name: tool.name,
    title: tool.title ?? annotationTitle(tool) ?? "",
    description: tool.description ?? "",
    params: parameterText(tool.inputSchema),
    serverText,
  };
}

function annotationTitle(tool: Tool): string | undefined {
  const title = (tool.annotations as { title?: unknown } | undefined)?.title;
  return typeof title === "string" ? title : undefined;
}

/** Parameter names and descriptions, one level of nesting deep (where task words live). */
function parameterText(schema: unknown, depth = 0): string {
  if (!isObject(schema) || depth > 1) return "";
  const properties = schema.properties;
  if (!isObject(properties)) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    parts.push(key);
    if (isObject(value)) {
      if (typeof value.description === "string") parts.push(value.description);
      if (typeof value.title === "string") parts.push(value.title);
      parts.push(parameterText(value, depth + 1));
      if (isObject(value.items)) parts.push(parameterText(value.items, depth + 1));
    }
  }
  return parts.join(" ");
}
