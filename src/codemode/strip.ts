/**
 * TypeScript in, JavaScript out, lines kept: the model writes against the typed declarations, the
 * engine runs JavaScript. Sucrase only removes types (no down-levelling, no module rewriting), keeps
 * every line where it was, so an error's line number is the line the model wrote; bench/codemode.ts
 * measures it against typescript's transpileModule.
 */
import { transform } from "sucrase";
import { FIRST_LINE } from "./prelude.js";

export interface Stripped {
  ok: true;
  code: string;
}

export interface StripFailure {
  ok: false;
  message: string;
  /** The model's line (1-based), when the parser said. */
  line: number | undefined;
}

/** The source wrapped as the body of an async function expression, types removed. */
export function stripTypes(source: string): Stripped | StripFailure {
  const wrapped = `(async () => {\n${source}\n})`;
  try {
    return { ok: true, code: transform(wrapped, { transforms: ["typescript"], disableESTransforms: true, keepUnusedImports: true }).code };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /\((\d+):(\d+)\)\s*$/.exec(message);
    const line = at ? Number(at[1]) - FIRST_LINE + 1 : undefined;
    return { ok: false, message: message.replace(/\s*\(\d+:\d+\)\s*$/, ""), line };
  }
}
