/**
 * Gemini function declarations (`tools: [{ functionDeclarations }]`), answered with `functionResponse`
 * parts. Parameters use Gemini's schema subset (OpenAPI 3.0 style: one `type`, `nullable`, no `$ref`).
 */
import type { Tool } from "../client/types.js";
import { compileInputSchema, type JsonSchema } from "./schema.js";
import { partsText, resultParts, type PartOptions } from "./media.js";
import type { NameOptions } from "./names.js";
import { oncePerList, orderedTools, runProviderCall, toolDescription, type RunOptions, type ToolHost } from "./tool-runner.js";

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** Absent when the tool takes no arguments (Gemini refuses an object without properties). */
  parameters?: JsonSchema;
}

/** A `functionCall` part of a Gemini response. */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/** The part to send back: `{ functionResponse }`, with images and PDFs as inline data parts. */
export interface GeminiFunctionResponsePart {
  functionResponse: {
    id?: string;
    name: string;
    /** `{ output }` for a result (text, or the structured content when asked), `{ error }` for a failure. */
    response: { output: unknown } | { error: string };
    parts?: Array<{ inlineData: { mimeType: string; data: string } }>;
  };
}

export type GeminiRunOptions = RunOptions & Pick<PartOptions, "media">;

export function toGeminiTools(tools: readonly Tool[], options: NameOptions = {}): GeminiFunctionDeclaration[] {
  const converted = oncePerList(tools, `gemini:${options.prefix ?? ""}`, () =>
    orderedTools(tools, "gemini", options).map(({ tool, name }): GeminiFunctionDeclaration => {
      const description = toolDescription(tool);
      const parameters = compileInputSchema(tool.inputSchema, "gemini").schema;
      return { name, ...(description === undefined ? {} : { description }), ...(parameters === undefined ? {} : { parameters }) };
    }),
  );
  return converted.slice();
}

/**
 * Runs one `functionCall` on the right server and returns the `functionResponse` part. Failures come
 * back as `{ error }` responses, so the agent loop continues and the model can react.
 */
export async function runGeminiFunctionCall(host: ToolHost, call: GeminiFunctionCall, options: GeminiRunOptions = {}): Promise<GeminiFunctionResponsePart> {
  const { result } = await runProviderCall(host, call.name, call.args ?? {}, "gemini", options);
  const parts = resultParts(result, "gemini", options);
  const text = partsText(parts, (part, i) => `[${part.kind} ${i}: ${(part as { mimeType: string }).mimeType}, attached]`);
  const media = parts.flatMap((part) =>
    part.kind === "image" || part.kind === "document" ? [{ inlineData: { mimeType: part.mimeType, data: part.data } }] : [],
  );
  const structured = options.useStructuredContent === true && result.structuredContent !== undefined && result.isError !== true;
  const response = result.isError === true ? { error: text } : { output: structured ? result.structuredContent : text };
  return {
    functionResponse: { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, response, ...(media.length > 0 ? { parts: media } : {}) },
  };
}

/** Runs every `functionCall` of one model turn at once; the responses keep the calls' order. */
export function runGeminiFunctionCalls(
  host: ToolHost,
  calls: readonly GeminiFunctionCall[],
  options?: GeminiRunOptions,
): Promise<GeminiFunctionResponsePart[]> {
  return Promise.all(calls.map((call) => runGeminiFunctionCall(host, call, options)));
}
