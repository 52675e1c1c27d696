/**
 * A tool result's content as parts a provider can take: text, images and documents, each checked
 * against the provider's limits; what a provider cannot take (audio, links, an image too large, a
 * type it does not read) becomes a line of text saying what was there.
 */
import type { CallToolResult } from "../client/types.js";
import { blockText, decodedBytes } from "./content.js";

export type MediaTarget = "openai" | "anthropic" | "gemini";

/**
 * What each provider takes inline in a tool result, with sizes counted as the base64 text sent.
 * Sources, by what they are: OpenAI's vision and file-input guides (PNG, JPEG, WEBP, non-animated GIF;
 * 20 MB per image, 50 MB per request; PDFs as `input_file`, 32 MB per request); Anthropic's vision
 * and PDF guides (JPEG, PNG, GIF, WEBP up to 5 MB per image; PDFs up to the 32 MB request size);
 * Google's Gemini API guides (inline data up to 20 MB per request; PNG, JPEG, WEBP, HEIC, HEIF, PDF).
 */
export const MEDIA_LIMITS: Record<
  MediaTarget,
  { images: readonly string[]; documents: readonly string[]; maxImageBytes: number; maxDocumentBytes: number; maxTotalBytes: number }
> = {
  openai: {
    images: ["image/png", "image/jpeg", "image/webp", "image/gif"],
    documents: ["application/pdf"],
    maxImageBytes: 20 * 1024 * 1024,
    maxDocumentBytes: 32 * 1024 * 1024,
    maxTotalBytes: 50 * 1024 * 1024,
  },
  anthropic: {
    images: ["image/jpeg", "image/png", "image/gif", "image/webp"],
    documents: ["application/pdf"],
    maxImageBytes: 5 * 1024 * 1024,
    maxDocumentBytes: 32 * 1024 * 1024,
    maxTotalBytes: 32 * 1024 * 1024,
  },
  gemini: {
    images: ["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"],
    documents: ["application/pdf"],
    maxImageBytes: 20 * 1024 * 1024,
    maxDocumentBytes: 20 * 1024 * 1024,
    maxTotalBytes: 20 * 1024 * 1024,
  },
};

const PROVIDER_NAMES: Record<MediaTarget, string> = { openai: "OpenAI", anthropic: "Anthropic", gemini: "Gemini" };

export type ResultPart =
  | { kind: "text"; text: string }
  | { kind: "image"; mimeType: string; data: string }
  | { kind: "document"; mimeType: string; data: string; name: string }
  /** An embedded text resource: its text, and where it came from. */
  | { kind: "resource"; uri: string; text: string; mimeType?: string | undefined };

export interface PartOptions {
  /** Use `structuredContent` (as JSON text) in place of the text blocks, when the result has it. */
  useStructuredContent?: boolean | undefined;
  /** Send images and documents (default true); false describes them instead. */
  media?: boolean | undefined;
}

type Block = CallToolResult["content"][number];

/** The result's content as parts one provider takes, in order, within its limits. */
export function resultParts(result: CallToolResult, target: MediaTarget, options: PartOptions = {}): ResultPart[] {
  const limits = MEDIA_LIMITS[target];
  const provider = PROVIDER_NAMES[target];
  const blocks = result.content ?? [];
  const structured = options.useStructuredContent === true && result.structuredContent !== undefined;
  const parts: ResultPart[] = [];
  let total = 0;
  const inline = (kind: "image" | "document", mimeType: string, data: string): string | undefined => {
    const allowed = kind === "image" ? limits.images : limits.documents;
    const max = kind === "image" ? limits.maxImageBytes : limits.maxDocumentBytes;
    if (options.media === false) return "not sent";
    if (!allowed.includes(mimeType.toLowerCase())) return `not sent: ${provider} does not take ${mimeType} here`;
    if (data.length > max) return `not sent: larger than ${provider}'s ${mebibytes(max)} limit`;
    if (total + data.length > limits.maxTotalBytes) return `not sent: the result would pass ${provider}'s ${mebibytes(limits.maxTotalBytes)} request limit`;
    total += data.length;
    return undefined;
  };
  if (structured) parts.push({ kind: "text", text: JSON.stringify(result.structuredContent) });
  for (const block of blocks) {
    const part = partOf(block, inline);
    if (part === undefined) continue;
    if (structured && (part.kind === "text" || part.kind === "resource")) continue;
    parts.push(part);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push({ kind: "text", text: JSON.stringify(result.structuredContent) });
  return parts;
}

function partOf(block: Block, inline: (kind: "image" | "document", mimeType: string, data: string) => string | undefined): ResultPart | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { kind: "text", text: block.text };
    case "image": {
      const refused = inline("image", block.mimeType, block.data);
      return refused === undefined
        ? { kind: "image", mimeType: block.mimeType.toLowerCase(), data: block.data }
        : { kind: "text", text: described("image", block.mimeType, block.data, refused) };
    }
    case "audio":
      return { kind: "text", text: described("audio", block.mimeType, block.data, "not sent: tool results take no audio") };
    case "resource": {
      const resource = block.resource as { uri: string; text?: string; blob?: string; mimeType?: string };
      if (typeof resource.text === "string") {
        return resource.text === ""
          ? { kind: "text", text: `[resource: ${resource.uri}, empty]` }
          : { kind: "resource", uri: resource.uri, text: resource.text, mimeType: resource.mimeType };
      }
      const mimeType = (resource.mimeType ?? "application/octet-stream").toLowerCase();
      if (typeof resource.blob === "string") {
        const kind = mimeType.startsWith("image/") ? "image" : "document";
        const refused = inline(kind, mimeType, resource.blob);
        if (refused === undefined)
          return kind === "image" ? { kind, mimeType, data: resource.blob } : { kind, mimeType, data: resource.blob, name: fileName(resource.uri) };
        return { kind: "text", text: `[resource: ${resource.uri}, ${mimeType}, ${decodedBytes(resource.blob)} bytes; ${refused}]` };
      }
      return { kind: "text", text: blockText(block) };
    }
    default:
      return { kind: "text", text: blockText(block) };
  }
}

function described(what: string, mimeType: string, data: string, why: string): string {
  return `[${what}: ${mimeType}, ${decodedBytes(data)} bytes; ${why}]`;
}

function mebibytes(bytes: number): string {
  return `${bytes / (1024 * 1024)} MB`;
}

function fileName(uri: string): string {
  const last = uri.split(/[/\\]/).pop() ?? "";
  return last === "" ? "document.pdf" : decodeURIComponentSafe(last);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** All text parts joined, with media described in place: for targets that take text only. */
export function partsText(parts: readonly ResultPart[], mediaNote: (part: ResultPart, index: number) => string): string {
  let mediaIndex = 0;
  return parts
    .map((part) => {
      if (part.kind === "text" || part.kind === "resource") return part.text;
      return mediaNote(part, ++mediaIndex);
    })
    .join("\n");
}
