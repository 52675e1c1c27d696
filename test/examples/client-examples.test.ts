/**
 * The README's runnable examples for sampling, elicitation and progress still run, end to end, against
 * server-everything over stdio, and print what the README says they print.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));

async function example(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", `examples/${name}.ts`], { cwd: root, timeout: 20_000 });
  return stdout;
}

describe("examples", () => {
  it("sampling.ts answers the server's sampling request", async () => {
    const out = await example("sampling");
    expect(out).toContain("server asks the model");
    expect(out).toContain('"text": "Four."');
  });

  it("elicitation.ts answers with the schema defaults filled in", async () => {
    const out = await example("elicitation");
    expect(out).toContain("Name: Ada Lovelace");
    expect(out).toContain("Favorite Integer: 42");
  });

  it("progress.ts prints each step", async () => {
    const out = await example("progress");
    expect(out).toContain("progress 1/4");
    expect(out).toContain("progress 4/4");
    expect(out).toContain("completed");
  });
});
