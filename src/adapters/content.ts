/** MCP tool result content, flattened for providers that take text or a few block kinds. */
import type { CallToolResult } from "../client/types.js";

type Block = CallToolResult["content"][number];

/** One block as text: text as it is, anything else described, so the model knows it was there. */
export function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${approximateBytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${approximateBytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource: ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    case "resource": {
      const resource = block.resource as { uri: string; text?: string; mimeType?: string };
      return resource.text !== undefined ? resource.text : `[resource: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}]`;
    }
    default:
      return JSON.stringify(block);
  }
}

/** The whole result as one string: its blocks, or its structured content when it has no blocks. */
export function resultText(result: CallToolResult): string {
  const blocks = result.content ?? [];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return blocks.map(blockText).join("\n");
}

function approximateBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}
