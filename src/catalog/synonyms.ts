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

let table: Map<string, string> | undefined;

/** The table, read on first use; empty when the file is missing (a bundle that left it out): search then runs without it. */
function synonymTable(): Map<string, string> {
  if (table !== undefined) return table;
  table = new Map();
  let text: string;
  try {
    text = readFileSync(new URL("../../data/wordnet-synonyms.txt", import.meta.url), "utf8");
  } catch {
    return table;
  }
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.indexOf(" ");
    table.set(line.slice(0, space), line.slice(space + 1));
  }
  return table;
}

/** The first-sense synonyms of every word of `text` that carries meaning (stop words skipped), as one text. */
export function synonymText(text: string): string {
  const synonyms = synonymTable();
  const found: string[] = [];
  for (const word of splitWords(text)) {
    if (termOf(word) === null) continue;
    const lower = word.toLowerCase();
    const entry = synonyms.get(lower) ?? synonyms.get(stem(lower));
    if (entry !== undefined) found.push(entry);
  }
  return found.join(" ");
}
