/**
 * The shipped index with an `embed` function beside it, for the tool-search bench (quality and embedding
 * time). Three rankings: the embedding alone (cosine); the board's hybrid (src/catalog/embedding-index.ts:
 * the full-text hits and the nearest tools fused by RRF, as `searchTools` does); and a weighted score
 * fusion (each tool's BM25 score over the top one's, plus `a` times its cosine), with `a` chosen on the
 * tuning half only and then read on the held-out half.
 */
import { EmbeddingIndex, cosine, embeddingText, fuseHits, type EmbedFunction } from "../../src/catalog/embedding-index.js";
import { ToolSearchIndex } from "../../src/catalog/search-index.js";
import type { Tool } from "../../src/index.js";
import type { CatalogQuery } from "../../test/catalog/queries.js";
import { better, qualityOfRanks, type RankingQuality } from "./ranking-quality.js";

/** The score-fusion weights tried on the tuning half. */
const COSINE_WEIGHTS = [0.25, 0.5, 1, 2, 4];
/** How many full-text hits the score fusion reads (past the cut-off, as the board's hybrid does). */
const FULL_TEXT_DEPTH = 50;

const round = (value: number, digits = 3) => Number(value.toFixed(digits));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export async function hybridRows(
  label: string,
  embed: EmbedFunction,
  servers: Record<string, Tool[]>,
  sets: { tuning: readonly CatalogQuery[]; heldOut: readonly CatalogQuery[] },
): Promise<Array<Record<string, string | number>>> {
  // Each text is embedded once: the three rankings share the vectors, and the times are of the first embedding.
  const vectors = new Map<string, number[]>();
  const queryMs: number[] = [];
  const remembered: EmbedFunction = async (texts) => {
    const missing = [...new Set(texts.filter((text) => !vectors.has(text)))];
    if (missing.length > 0) {
      const began = performance.now();
      const fresh = await embed(missing);
      if (texts.length === 1) queryMs.push(performance.now() - began);
      missing.forEach((text, i) => vectors.set(text, fresh[i]));
    }
    return texts.map((text) => vectors.get(text)!);
  };
  const index = new ToolSearchIndex();
  const documents: Array<{ id: string; text: string }> = [];
  for (const [server, tools] of Object.entries(servers)) {
    const named = tools.map((tool) => ({ name: `${server}__${tool.name}`, tool }));
    index.setServer(server, named);
    for (const { name, tool } of named) documents.push({ id: name, text: embeddingText({ ...tool, name }) });
  }
  const embeddings = new EmbeddingIndex(remembered);
  const began = performance.now();
  await embeddings.sync(documents);
  const toolsMs = performance.now() - began;

  const boardHybrid = async (query: string) =>
    fuseHits(index.search(query, { limit: 10 }), await embeddings.nearest(query, 10), 10, (name) => index.hitOf(name)).map((hit) => hit.name);
  const cosines = (query: string) => documents.map(({ id, text }) => ({ id, similarity: cosine(vectors.get(query)!, vectors.get(text)!) }));
  const embeddingOnly = (query: string) =>
    cosines(query)
      .sort((a, b) => b.similarity - a.similarity)
      .map((entry) => entry.id);
  const scoreFusion = (weight: number) => (query: string) => {
    const hits = index.search(query, { limit: FULL_TEXT_DEPTH });
    const top = hits[0]?.score ?? 1;
    const fullText = new Map(hits.map((hit) => [hit.name, hit.score / top]));
    return cosines(query)
      .map(({ id, similarity }) => ({ id, score: (fullText.get(id) ?? 0) + weight * similarity }))
      .sort((a, b) => b.score - a.score)
      .map((entry) => entry.id);
  };
  const qualityOf = async (rank: (query: string) => string[] | Promise<string[]>, queries: readonly CatalogQuery[]): Promise<RankingQuality> => {
    const ranks: number[] = [];
    for (const { query, expected } of queries) ranks.push((await rank(query)).slice(0, 10).findIndex((id) => expected.includes(id)));
    return qualityOfRanks(ranks);
  };
  const row = async (library: string, rank: (query: string) => string[] | Promise<string[]>) => {
    const [tuning, heldOut] = [await qualityOf(rank, sets.tuning), await qualityOf(rank, sets.heldOut)];
    return {
      library,
      "recall@5": round(tuning.recall),
      MRR: round(tuning.mrr),
      "held-out recall@5": round(heldOut.recall),
      "held-out MRR": round(heldOut.mrr),
    };
  };

  const rrf = await row(`MiniSearch + ${label} (RRF, as searchTools)`, boardHybrid); // embeds the queries, one call each
  let weight = COSINE_WEIGHTS[0];
  let best = await qualityOf(scoreFusion(weight), sets.tuning);
  for (const candidate of COSINE_WEIGHTS.slice(1)) {
    const reading = await qualityOf(scoreFusion(candidate), sets.tuning);
    if (better(reading, best)) [weight, best] = [candidate, reading];
  }
  return [
    await row(`${label} alone (cosine)`, embeddingOnly),
    { ...rrf, [`embed ${documents.length} tools (ms)`]: Math.round(toolsMs), "embed one query, p50 (ms)": round(median(queryMs), 1) },
    await row(`MiniSearch + ${label} (BM25 / top + ${weight} × cosine, the weight from the tuning half)`, scoreFusion(weight)),
  ];
}
