/**
 * How tool text becomes search terms: names split on `_`, `-`, `.`, `/` and camelCase, lower-cased,
 * a light suffix stemmer, and a small table that folds the verbs and nouns task queries paraphrase
 * ("remove" for "delete", "make" for "create", "repo" for "repository") onto one term. Index and
 * query both pass through it, so a paraphrase meets the description's word without a synonym list
 * per tool. Kept to general synonyms on purpose: entries that served one query of the tuning half
 * (test/catalog/queries.ts: "repeat echo", "sum plus total", "leave" as "create") were removed, which
 * cost recall there and none on the held-out half (docs/guide/catalogs.md has the numbers).
 */

/** Words that carry nothing for ranking (as in "a tool that can list the ..."). */
const STOP_WORDS = new Set(
  "a an and are as at be by can do does for from has have how i in into is it its me my of on or our so that the their them then this to use used uses using via want we what when where which will with you your".split(
    " ",
  ),
);

/** Paraphrase groups: every word of a group is indexed and searched as its first word. */
const GROUPS: readonly string[] = [
  "delete remove erase destroy drop purge discard",
  "create make add new insert generate register",
  "get fetch retrieve read show view load obtain display",
  "list enumerate browse",
  "update edit modify change alter set patch adjust",
  "search find query lookup look locate seek filter match",
  "send post publish notify deliver email message",
  "write save store put persist record",
  "run execute invoke trigger start launch perform",
  "stop cancel halt abort terminate end",
  "repository repo codebase project",
  "directory folder dir path",
  "file document doc",
  "user account member person people profile",
  "issue ticket bug",
  "pull pr merge",
  "comment reply note remark",
  "invoice bill billing charge",
  "customer client",
  "entity node",
  "relation relationship link edge connection",
  "observation fact",
  "move relocate transfer rename",
  "metadata info information stat stats detail details",
  "tree hierarchy structure nested recursive",
  "sleep wait delay pause",
  "schedule calendar meeting appointment event",
  "refund reimburse",
  "subscription plan",
  "payment pay",
  "order purchase",
  "contact lead",
  "deal opportunity",
  "task todo",
  "log logs audit",
  "report analytics metric metrics",
  "permission role access allow permit",
  "webhook callback hook",
  "image picture photo screenshot",
  "commit revision",
  "campaign newsletter mailing",
];

/** Splits text into raw words: on anything not a letter or digit, and at camelCase boundaries. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** A light English stemmer: plural and verb endings, enough to meet "files"/"file", "listing"/"list". */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  if (word.endsWith("ing") && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith("ed") && word.length > 4) return undouble(word.endsWith("ied") ? `${word.slice(0, -3)}y` : word.slice(0, -2));
  return word;
}

function undouble(word: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(word) && !/(?:ll|ss|zz)$/.test(word) ? word.slice(0, -1) : word;
}

/**
 * The term processing with a given stemmer: a word lower-cased, stop words dropped, stemmed, folded
 * onto its paraphrase group. bench/search-libraries.ts measures a Snowball stemmer in place of `stem` with it.
 */
export function termProcessor(stemmer: (word: string) => string): (word: string) => string | null {
  const canonical = new Map<string, string>();
  for (const group of GROUPS) {
    const words = group.split(" ");
    const head = stemmer(words[0]!);
    for (const word of words) if (!canonical.has(stemmer(word))) canonical.set(stemmer(word), head);
  }
  return (word) => {
    const lower = word.toLowerCase();
    if (STOP_WORDS.has(lower)) return null;
    const stemmed = stemmer(lower);
    return canonical.get(stemmed) ?? stemmed;
  };
}

/** One word as a term, with the light stemmer above. */
export const termOf = termProcessor(stem);
