/**
 * The optional `embed` hook: the application's own embedding function ranks tools by meaning beside
 * the full-text index, and the two lists are fused by reciprocal rank fusion (RRF: each list gives a
 * tool 1 / (60 + its rank), the sums rank the fused list). RRF needs no common scale between a BM25
 * score and a cosine, which is why it is the usual way to combine the two. Each tool's text is
 * embedded once and kept while the text stays the same, so a `list_changed` embeds only what changed.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import type { Tool } from "../client/types.js";
import type { ToolSearchHit } from "./search-index.js";

/** The application's embedding function: one vector per text, in order, all of one length. */
export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

/** RRF's constant: the rank where a hit's weight has halved; 60 is the value the method was published with. */
const RRF_K = 60;

/** What a tool is embedded as: its name's words, title and description. */
export function embeddingText(tool: Tool): string {
  return [tool.name.replace(/[_\-.]+/g, " "), tool.title, tool.description].filter(Boolean).join(". ");
}

interface Embedded {
  text: string;
  vector: Float64Array;
}

export class EmbeddingIndex {
  private readonly vectors = new Map<string, Embedded>();
  /** The tool list being embedded, so concurrent searches share one call. */
  private syncing: { documents: unknown; done: Promise<void> } | undefined;

  constructor(private readonly embed: EmbedFunction) {}

  /** Embeds the tools not embedded yet (or whose text changed) and forgets those gone; `documents` is compared by identity. */
  sync(documents: ReadonlyArray<{ id: string; text: string }>): Promise<void> {
    if (this.syncing?.documents === documents) return this.syncing.done;
    const done = this.embedMissing(documents);
    this.syncing = { documents, done };
    done.catch(() => {
      if (this.syncing?.done === done) this.syncing = undefined; // a failed sync is tried again on the next search
    });
    return done;
  }

  private async embedMissing(documents: ReadonlyArray<{ id: string; text: string }>): Promise<void> {
    const ids = new Set(documents.map((document) => document.id));
    for (const id of this.vectors.keys()) if (!ids.has(id)) this.vectors.delete(id);
    const missing = documents.filter((document) => this.vectors.get(document.id)?.text !== document.text);
    if (missing.length === 0) return;
    const vectors = await this.vectorsOf(missing.map((document) => document.text));
    missing.forEach((document, i) => this.vectors.set(document.id, { text: document.text, vector: vectors[i]! }));
  }

  /** The ids nearest to `query` by cosine, best first, at most `limit`. */
  async nearest(query: string, limit: number): Promise<string[]> {
    const [target] = await this.vectorsOf([query]);
    const scored: Array<{ id: string; similarity: number }> = [];
    for (const [id, { vector }] of this.vectors) scored.push({ id, similarity: cosine(target!, vector) });
    scored.sort((a, b) => b.similarity - a.similarity);
    return scored.slice(0, limit).map((entry) => entry.id);
  }

  private async vectorsOf(texts: string[]): Promise<Float64Array[]> {
    const vectors: unknown = await this.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new ConfigError(`the embed function returned ${Array.isArray(vectors) ? `${vectors.length} vectors` : "no array"} for ${texts.length} texts`, {
        field: "embed",
      });
    }
    const length = this.dimension ?? (vectors[0] as unknown[] | undefined)?.length;
    return vectors.map((vector: unknown, i) => {
      if (!Array.isArray(vector) || vector.length !== length || length === 0 || !vector.every((value) => typeof value === "number" && Number.isFinite(value))) {
        throw new ConfigError(`the embed function's vector ${i} is not ${length ?? "a"} finite numbers like the others`, { field: "embed" });
      }
      return Float64Array.from(vector as number[]);
    });
  }

  private get dimension(): number | undefined {
    for (const { vector } of this.vectors.values()) return vector.length;
    return undefined;
  }
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/** Reciprocal rank fusion of ranked id lists: ids with their fused score, best first. */
function fuseRanks(lists: ReadonlyArray<readonly string[]>): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/**
 * The hybrid list: the full-text `hits` (past the cut-off) and the `nearest` ids by meaning, fused by
 * RRF, at most `limit`; a tool both rank high comes first, one only meaning finds can still make it.
 * `hitOf` gives the hit of a tool the full text did not find; `score` becomes the fused score.
 */
export function fuseHits(
  hits: readonly ToolSearchHit[],
  nearest: readonly string[],
  limit: number,
  hitOf: (name: string) => ToolSearchHit | undefined,
): ToolSearchHit[] {
  const byName = new Map(hits.map((hit) => [hit.name, hit]));
  const fused: ToolSearchHit[] = [];
  for (const { id, score } of fuseRanks([hits.map((hit) => hit.name), nearest]).slice(0, limit)) {
    const hit = byName.get(id) ?? hitOf(id);
    if (hit !== undefined) fused.push({ ...hit, score });
  }
  return fused;
}
