#!/usr/bin/env node
/**
 * The API reports under api/: one per package entry point (package.json "exports"), made by API
 * Extractor from the built declarations in dist/ (run `npm run build` first; the npm scripts do).
 *
 *   node scripts/api-report.mjs          check: fails when a report differs from the public surface
 *   node scripts/api-report.mjs --update regenerate the reports (then review and commit the diff)
 *
 * Without --update this is API Extractor's non-local mode: a changed surface is an error, so CI fails
 * until someone updates the report and the change is seen in review.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const update = process.argv.includes("--update");
const configDir = join(dirname(fileURLToPath(import.meta.url)), "..", "api", "extractor");
const entries = readdirSync(configDir).filter((f) => f.endsWith(".json") && f !== "base.json");

let failed = 0;
for (const file of entries.sort()) {
  const config = ExtractorConfig.loadFileAndPrepare(join(configDir, file));
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  const report = `api/${config.reportFileName ?? file.replace(/\.json$/, ".api.md")}`;
  if (result.succeeded) {
    console.log(`${report}: ${result.apiReportChanged ? "updated" : "unchanged"}${result.warningCount ? ` (${result.warningCount} warnings)` : ""}`);
  } else {
    failed++;
    console.error(
      `${report}: ${result.apiReportChanged ? "the public API differs from the report; run `npm run api:update`, review the diff, commit it" : `${result.errorCount} errors`}`,
    );
  }
}
process.exit(failed === 0 ? 0 : 1);
