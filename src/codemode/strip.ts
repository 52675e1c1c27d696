/**
 * TypeScript in, JavaScript out, lines kept: the model writes against the typed declarations, the
 * engine runs JavaScript. Sucrase only removes types (no down-levelling, no module rewriting), keeps
 * every line where it was, so an error's line number is the line the model wrote; bench/codemode.ts
 * measures it against typescript's transpileModule.
 */
import { transform } from "sucrase";

/** Where the wrapper puts the model's first line (the line before it opens the async function). */
export const FIRST_LINE = 2;

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
