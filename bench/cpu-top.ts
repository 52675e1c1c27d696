/**
 * The top self-time functions of a V8 CPU profile (node --cpu-prof), and the time per area of the code
 * (each src/ layer, node internals, dependencies, GC): where a call spends its time.
 *   npx tsx bench/cpu-top.ts <file.cpuprofile> [how many, default 25]
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { table } from "./lib/stats.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = new URL("../", import.meta.url).href;
const [file, count = "25"] = process.argv.slice(2);
if (!file) throw new Error("Usage: npx tsx bench/cpu-top.ts <file.cpuprofile> [how many]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const perFunction = new Map<string, { name: string; where: string; area: string; us: number }>();
const perArea = new Map<string, number>();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === "(idle)" || functionName === "(program)") {
    idle += functionName === "(idle)" ? us : 0;
    if (functionName === "(idle)") continue;
  }
  total += us;
  const area = areaOf(functionName, url);
  perArea.set(area, (perArea.get(area) ?? 0) + us);
  const where = url ? `${shorten(url)}:${lineNumber + 1}` : "";
  const key = `${functionName}@${where}`;
  const entry = perFunction.get(key) ?? { name: functionName || "(anonymous)", where, area, us: 0 };
  entry.us += us;
  perFunction.set(key, entry);
}

const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`;
console.log(`\n${file}: ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle\n`);
console.log(
  table(
    ["area", "self time", "share"],
    [...perArea].sort((a, b) => b[1] - a[1]).map(([area, us]) => [area, `${(us / 1000).toFixed(0)} ms`, pct(us)]),
  ),
);
console.log();
const top = [...perFunction.values()].sort((a, b) => b.us - a.us).slice(0, Number(count));
console.log(
  table(
    ["function", "where", "self time", "share"],
    top.map((f) => [f.name, f.where, `${(f.us / 1000).toFixed(0)} ms`, pct(f.us)]),
  ),
);

function areaOf(name: string, url: string): string {
  if (name === "(garbage collector)") return "GC";
  if (name === "(program)") return "V8 (program)";
  const src = /^(?:src|dist)\/([^/]+)\//.exec(shorten(url));
  if (src) return `src/${src[1]}`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1];
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0] === "internal" ? url.slice(5).split("/").slice(1, 2).join("") : url.slice(5)}`;
  if (shorten(url).startsWith("bench/")) return "bench (load loop)";
  return url ? "other" : "native / builtins";
}

/** A path in this repository relative to its root (tsx reports file: URLs, V8 sometimes plain paths). */
function shorten(url: string): string {
  const href = url.startsWith("/") ? pathToFileURL(url).href : url;
  return href.startsWith(ROOT) ? href.slice(ROOT.length) : url;
}
