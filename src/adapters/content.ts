/** MCP tool result content as text, for places that take text only (the CLI, Chat Completions). */
import type { CallToolResult } from "../client/types.js";

type Block = CallToolResult["content"][number];

/** One block as text: text as it is, anything else described, so the model knows it was there. */
export function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${decodedBytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${decodedBytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${block.uri}${block.name ? ` (${block.name}${block.mimeType ? `, ${block.mimeType}` : ""})` : ""}]`;
    case "resource": {
      const resource = block.resource as { uri: string; text?: string; mimeType?: string };
      return resource.text !== undefined ? resource.text : `[resource: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}]`;
    }
    default:
      return JSON.stringify(block);
  }
}

/** Bytes of base64 data once decoded. */
export function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}
