/**
 * The reference server's image tool, end to end over stdio: server-everything's `get-tiny-image`
 * becomes a Responses `input_image` and an Anthropic image block whose bytes equal the server's, and a
 * Gemini inline part. The shapes are checked against the `openai` and `@anthropic-ai/sdk` types with
 * `satisfies` (the typecheck in `npm test` fails if they drift).
 */
import { fileURLToPath } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  runAnthropicToolUse,
  runGeminiFunctionCall,
  runOpenAIToolCall,
  runOpenAIToolCalls,
  toAnthropicTools,
  toGeminiTools,
  toOpenAITools,
  type McpClient,
} from "../../src/index.js";
import { isAlive, waitFor } from "../helpers/processes.js";

const everything = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
let client: McpClient;
let pid: number | undefined;
let serverImage: { data: string; mimeType: string };

beforeAll(async () => {
  client = await connect({ command: process.execPath, args: [everything, "stdio"] }, { protocol: "legacy" });
  pid = (client.connection.transport as unknown as { pid?: number }).pid;
  const direct = await client.callTool("get-tiny-image", {});
  const image = direct.content.find((block) => block.type === "image");
  if (image?.type !== "image") throw new Error("server-everything's get-tiny-image returned no image");
  serverImage = { data: image.data, mimeType: image.mimeType };
});

afterAll(async () => {
  await client?.close();
  if (pid !== undefined) await waitFor(() => !isAlive(pid), 5000);
});

describe("server-everything's image through the adapters", () => {
  it("Responses: an input_image with the server's bytes", async () => {
    const output = await runOpenAIToolCall(client, { type: "function_call", call_id: "fc_1", name: "get-tiny-image", arguments: "{}" });
    const item = output satisfies OpenAI.Responses.ResponseInputItem.FunctionCallOutput;
    expect(Array.isArray(item.output)).toBe(true);
    const image = (item.output as OpenAI.Responses.ResponseFunctionCallOutputItemList).find((part) => part.type === "input_image");
    expect(image?.type === "input_image" && image.image_url).toBe(`data:${serverImage.mimeType};base64,${serverImage.data}`);
    const url = (image as OpenAI.Responses.ResponseInputImageContent).image_url!;
    expect(Buffer.from(url.slice(url.indexOf(",") + 1), "base64").equals(Buffer.from(serverImage.data, "base64"))).toBe(true);
  });

  it("Anthropic: an image block with the server's bytes", async () => {
    const result = await runAnthropicToolUse(client, { type: "tool_use", id: "toolu_1", name: "get-tiny-image", input: {} });
    const block = result satisfies Anthropic.Messages.ToolResultBlockParam;
    const image = block.content.find((part) => part.type === "image");
    expect(image).toEqual({ type: "image", source: { type: "base64", media_type: serverImage.mimeType, data: serverImage.data } });
    expect(Buffer.from(image?.type === "image" ? image.source.data : "", "base64").equals(Buffer.from(serverImage.data, "base64"))).toBe(true);
  });

  it("Gemini: an inline data part with the server's bytes", async () => {
    const part = await runGeminiFunctionCall(client, { id: "g1", name: "get-tiny-image", args: {} });
    expect(part.functionResponse.parts).toEqual([{ inlineData: { mimeType: serverImage.mimeType, data: serverImage.data } }]);
  });

  it("tool lists and messages type-check against the providers' SDK types", async () => {
    const tools = await client.listTools();
    toOpenAITools(tools) satisfies OpenAI.Chat.Completions.ChatCompletionTool[];
    toOpenAITools(tools, { api: "responses", strict: "auto" }) satisfies OpenAI.Responses.FunctionTool[];
    toAnthropicTools(tools, { cacheControl: { type: "ephemeral", ttl: "1h" } }) satisfies Anthropic.Messages.Tool[];
    const messages = await runOpenAIToolCalls(client, [{ id: "call_1", type: "function", function: { name: "get-tiny-image", arguments: "{}" } }], {
      chatMedia: "user-message",
    });
    messages satisfies OpenAI.Chat.Completions.ChatCompletionMessageParam[];
    expect(messages.map((m) => m.role)).toEqual(["tool", "user"]);
    expect(toGeminiTools(tools).find((t) => t.name === "get-sum")?.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
  });
});
