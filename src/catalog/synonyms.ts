/**
 * Document expansion with WordNet: each tool's words bring their first-sense synonyms into a field of
 * their own, so a query that says "automobile" meets a tool that says "car" without a synonym list per
 * tool or per query. The table (data/wordnet-synonyms.txt, 44,064 lemmas, 1.3 MB, made from WordNet 3.1
 * by scripts/wordnet-synonyms.mjs) is read once, on the first tool indexed. Only the most frequent sense
 * of each word is used: further senses and query-side expansion measured worse
 * (bench/search-libraries.ts; the numbers are in docs/guide/catalogs.md).
 */
import { readFileSync } from "node:fs";
import { splitWords, stem, termOf } from "./terms.js";

/** The table's text, sorted by lemma as the generator wrote it, and where each lemma's line starts. */
interface SynonymTable {
  text: string;
  starts: Int32Array;
}

let table: SynonymTable | undefined;

/**
 * The table, read on first use and kept as its text with an index of line starts (1.5 MB held; a Map
 * of its 44,064 entries held 5.6 MB). Empty when the file is missing (a bundle that left it out):
 * search then runs without it.
 */
function synonymTable(): SynonymTable {
  if (table !== undefined) return table;
  let text = "";
  try {
    text = readFileSync(new URL("../../data/wordnet-synonyms.txt", import.meta.url), "utf8");
  } catch {
    // Missing: no synonyms.
  }
  const starts: number[] = [];
  for (let at = 0; at < text.length;) {
    const end = text.indexOf("\n", at);
    const stop = end === -1 ? text.length : end;
    if (stop > at && text[at] !== "#") starts.push(at);
    at = stop + 1;
  }
  table = { text, starts: Int32Array.from(starts) };
  return table;
}

/** The synonyms of one lemma: a binary search over the sorted lines. */
function synonymsOf({ text, starts }: SynonymTable, word: string): string | undefined {
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const start = starts[middle]!;
    const space = text.indexOf(" ", start);
    const lemma = text.slice(start, space);
    if (lemma === word) {
      const end = text.indexOf("\n", space);
      return text.slice(space + 1, end === -1 ? text.length : end);
    }
    if (lemma < word) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** The first-sense synonyms of every word of `text` that carries meaning (stop words skipped), as one text. */
export function synonymText(text: string): string {
  const synonyms = synonymTable();
  const found: string[] = [];
  for (const word of splitWords(text)) {
    if (termOf(word) === null) continue;
    const lower = word.toLowerCase();
    const entry = synonymsOf(synonyms, lower) ?? synonymsOf(synonyms, stem(lower));
    if (entry !== undefined) found.push(entry);
  }
  return found.join(" ");
}
