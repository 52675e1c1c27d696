/** The token stores: one entry per (server, issuer), exclusive updates, and the file store's safety. */
import { execFile } from "node:child_process";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { AuthorizationError, fileTokenStore, memoryTokenStore, type StoredAuth, type TokenStore } from "../../src/index.js";
import { temporaryDirectories } from "./fixtures/setup.js";

const run = promisify(execFile);
const SERVER = "https://mcp.example.com/mcp";
const entry = (accessToken: string): StoredAuth => ({ tokens: { accessToken, tokenType: "bearer", obtainedAt: 1 }, updatedAt: 0 });

const tempDirectory = temporaryDirectories();
const tempFile = async () => join(await tempDirectory(), "nested", "tokens.json");

describe.each([
  ["memoryTokenStore", async () => memoryTokenStore()],
  ["fileTokenStore", async () => fileTokenStore(await tempFile())],
] as const)("%s", (_name, make: () => Promise<TokenStore>) => {
  it("keeps credentials per server and per issuer, most recent issuer first", async () => {
    const store = await make();
    await store.update(SERVER, "https://as1.example.com", () => entry("one"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.update(SERVER, "https://as2.example.com", () => entry("two"));
    expect((await store.get(SERVER, "https://as1.example.com"))?.tokens?.accessToken).toBe("one");
    expect(await store.get("https://other.example.com/mcp", "https://as1.example.com")).toBeUndefined();
    expect(await store.issuers(SERVER)).toEqual(["https://as2.example.com", "https://as1.example.com"]);
    await store.delete(SERVER, "https://as2.example.com");
    expect(await store.issuers(SERVER)).toEqual(["https://as1.example.com"]);
    await store.delete(SERVER);
    expect(await store.issuers(SERVER)).toEqual([]);
  });

  it("runs concurrent updates of an entry one at a time (no lost update)", async () => {
    const store = await make();
    await Promise.all(
      Array.from({ length: 20 }, () => store.update(SERVER, "i", (current) => ({ ...current, scope: String(Number(current?.scope ?? 0) + 1), updatedAt: 0 }))),
    );
    expect((await store.get(SERVER, "i"))?.scope).toBe("20");
  });

  it("hands out copies: changing what get() returned changes nothing stored", async () => {
    const store = await make();
    await store.update(SERVER, "i", () => entry("kept"));
    const copy = await store.get(SERVER, "i");
    copy!.tokens!.accessToken = "changed";
    expect((await store.get(SERVER, "i"))?.tokens?.accessToken).toBe("kept");
  });
});

describe("fileTokenStore", () => {
  it("writes the file 0600 in a 0700 directory, atomically (no temporary file left)", async () => {
    const file = await tempFile();
    await fileTokenStore(file).update(SERVER, "i", () => entry("secret"));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(file, ".."))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(file, ".."))).toEqual(["tokens.json"]);
    expect(JSON.parse(await readFile(file, "utf8")).version).toBe(1);
  });

  it("two processes updating the same file lose nothing", async () => {
    const file = await tempFile();
    const child = fileURLToPath(new URL("./fixtures/store-increment-child.ts", import.meta.url));
    await Promise.all([0, 1].map(() => run(process.execPath, ["--import", "tsx", child, file, "40"], { timeout: 60_000 })));
    expect((await fileTokenStore(file).get(SERVER, "https://as.example.com"))?.scope).toBe("80");
  });

  it("breaks a lock left by a process that is gone", async () => {
    const file = await tempFile();
    const store = fileTokenStore(file);
    await store.update(SERVER, "i", () => entry("a"));
    await writeFile(`${file}.lock`, "999999999 0\n"); // no such pid, and ancient
    await store.update(SERVER, "i", () => entry("b"));
    expect((await store.get(SERVER, "i"))?.tokens?.accessToken).toBe("b");
  });

  it("a damaged file is an AuthorizationError that names the file and quotes none of it", async () => {
    const file = await tempFile();
    await fileTokenStore(file).update(SERVER, "i", () => entry("x"));
    await writeFile(file, '{"version":1,"servers":{"a":"secret-token-value"');
    const error = await fileTokenStore(file)
      .get(SERVER, "i")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toContain(file);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain("secret-token-value");
  });
});
