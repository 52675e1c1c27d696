/**
 * `fileTokenStore(path)`: credentials in one JSON file, readable by its owner only (mode 0600, in a
 * directory created 0700). Every write goes to a temporary file that is then renamed over the old
 * one, so a reader (or a crash) never sees half a file; every update holds a lock file
 * (`<path>.lock`, see file-lock.ts) from read to rename, so two processes sharing the file never lose
 * each other's changes, and a refresh run inside `update` is done by one of them only.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { isObject } from "../util/guards.js";
import { AuthorizationError } from "./errors.js";
import { withFileLock } from "./file-lock.js";
import { applyChange, issuersOf, type StoreData, type TokenStore } from "./token-store.js";

const FORMAT = 1;

/** Where the command line and `mcp.json` entries keep credentials unless told otherwise. */
export function defaultTokenFile(): string {
  return join(homedir(), ".mcp-switchboard", "tokens.json");
}

export function fileTokenStore(path: string = defaultTokenFile()): TokenStore {
  const file = resolve(path);
  const lockPath = `${file}.lock`;
  // Tasks of this process take turns before taking the file lock, instead of spinning on it.
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: (data: StoreData) => Promise<{ result: T; changed: boolean }>): Promise<T> => {
    const run = turn.then(async () => {
      // The lock file lives beside the data file: its directory must exist first (0700: tokens inside).
      await mkdir(dirname(file), { recursive: true, mode: 0o700 }).catch((error: Error) => {
        throw new AuthorizationError(`Cannot create the directory of the token file ${file}: ${error.message}`, { cause: error });
      });
      return withFileLock(lockPath, async () => {
        const data = await readData(file);
        const { result, changed } = await work(data);
        if (changed) await writeData(file, data);
        return result;
      });
    });
    turn = run.catch(() => undefined);
    return run;
  };
  return {
    id: `file:${file}`,
    async get(server, issuer) {
      const data = await readData(file);
      return data[server]?.[issuer];
    },
    update(server, issuer, change) {
      return exclusive(async (data) => ({ result: await applyChange(data, server, issuer, change), changed: true }));
    },
    delete(server, issuer) {
      return exclusive(async (data) => {
        if (data[server] === undefined) return { result: undefined, changed: false };
        if (issuer === undefined) delete data[server];
        else await applyChange(data, server, issuer, () => undefined);
        return { result: undefined, changed: true };
      });
    },
    async issuers(server) {
      return issuersOf(await readData(file), server);
    },
  };
}

async function readData(file: string): Promise<StoreData> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Object.create(null) as StoreData;
    throw new AuthorizationError(`Cannot read the token file ${file}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // The message of a JSON syntax error quotes the text around it, which may hold a token.
    throw new AuthorizationError(`The token file ${file} is not valid JSON; delete it (every server will need authorizing again)`, {
      cause: new Error((error as Error).name),
    });
  }
  if (!isObject(parsed) || parsed.version !== FORMAT || !isObject(parsed.servers)) {
    throw new AuthorizationError(`The token file ${file} is not a mcp-switchboard token file (format ${FORMAT}); delete it or choose another path`);
  }
  return Object.assign(Object.create(null) as StoreData, parsed.servers as StoreData);
}

async function writeData(file: string, data: StoreData): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify({ version: FORMAT, servers: data }, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    // writeFile's mode is filtered by the umask; the file must not be readable by others either way.
    await chmod(temporary, 0o600);
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw new AuthorizationError(`Cannot write the token file ${file}: ${(error as Error).message}`, { cause: error });
  }
}
