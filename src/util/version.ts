/**
 * This package's version, read once from its package.json: `src/util/` under tsx and `dist/util/`
 * after a build both sit two folders below it.
 */
import { createRequire } from "node:module";

export const VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
