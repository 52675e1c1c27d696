/**
 * Off means absent: with @opentelemetry/api not installed (hidden from a child process), the package
 * loads, connects and calls without ever trying to load it; asking for telemetry then fails with a
 * ConfigError that says what to install.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describe("telemetry off", () => {
  it("never loads @opentelemetry/api; enabling telemetry without it is a ConfigError naming the package", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        here("./fixtures/hide-otel-api.mjs"),
        "--import",
        "tsx",
        here("./fixtures/without-otel.ts"),
        process.execPath,
        here("./fixtures/traced-stdio.mjs"),
      ],
      { timeout: 20_000 },
    );
    const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as { called: boolean; attemptsWhileOff: number; failure?: { name: string; message: string } };
    expect(report.called).toBe(true);
    expect(report.attemptsWhileOff).toBe(0);
    expect(report.failure?.name).toBe("ConfigError");
    expect(report.failure?.message).toContain("npm install @opentelemetry/api");
  });
});
