/**
 * Tool results in each provider's shape: images and PDFs sent where the provider takes them and within
 * its limits, described where not; audio and resource links described; structured content on request.
 */
import { describe, expect, it } from "vitest";
import { MEDIA_LIMITS, runAnthropicToolUse, runGeminiFunctionCall, runOpenAIToolCall, runOpenAIToolCalls, type Tool } from "../../src/index.js";

const PNG = "iVBORw0KGgo=";
const PDF = Buffer.from("%PDF-1.4 tiny").toString("base64");
const bigImage = "A".repeat(MEDIA_LIMITS.anthropic.maxImageBytes + 4);

function hostReturning(content: unknown[], extra: Record<string, unknown> = {}) {
  const tools: Tool[] = [{ name: "snap", inputSchema: { type: "object" } }];
  return { listTools: async () => tools, callTool: async () => ({ content, ...extra }) as never };
}

const mixed = [
  { type: "text", text: "Here it is" },
  { type: "image", mimeType: "image/png", data: PNG },
  { type: "resource", resource: { uri: "file:///r/report.pdf", mimeType: "application/pdf", blob: PDF } },
  { type: "resource", resource: { uri: "file:///r/notes.txt", mimeType: "text/plain", text: "line one" } },
  { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
  { type: "resource_link", uri: "file:///r/big.csv", name: "big.csv", mimeType: "text/csv" },
];

describe("tool results with their content", () => {
  it("Responses: function_call_output carries input_text, input_image and input_file parts", async () => {
    const out = await runOpenAIToolCall(hostReturning(mixed), { type: "function_call", call_id: "c1", name: "snap", arguments: "{}" }, { imageDetail: "high" });
    expect(out).toEqual({
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "Here it is" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "high" },
        { type: "input_file", file_data: `data:application/pdf;base64,${PDF}`, filename: "report.pdf" },
        { type: "input_text", text: "line one" },
        { type: "input_text", text: "[audio: audio/wav, 4 bytes; not sent: tool results take no audio]" },
        { type: "input_text", text: "[resource link: file:///r/big.csv (big.csv, text/csv)]" },
      ],
    });
  });

  it("Anthropic: tool_result carries text, image and document blocks", async () => {
    const out = await runAnthropicToolUse(hostReturning(mixed), { type: "tool_use", id: "t1", name: "snap", input: {} });
    expect(out.content).toEqual([
      { type: "text", text: "Here it is" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "line one" }, title: "file:///r/notes.txt" },
      { type: "text", text: "[audio: audio/wav, 4 bytes; not sent: tool results take no audio]" },
      { type: "text", text: "[resource link: file:///r/big.csv (big.csv, text/csv)]" },
    ]);
  });

  it("Gemini: functionResponse with the text as output and images and PDFs as inline data parts", async () => {
    const out = await runGeminiFunctionCall(hostReturning(mixed), { id: "g1", name: "snap", args: {} });
    expect(out.functionResponse.parts).toEqual([
      { inlineData: { mimeType: "image/png", data: PNG } },
      { inlineData: { mimeType: "application/pdf", data: PDF } },
    ]);
    expect(out.functionResponse).toMatchObject({ id: "g1", name: "snap", response: { output: expect.stringContaining("[image 1: image/png, attached]") } });
    const failed = await runGeminiFunctionCall(hostReturning([{ type: "text", text: "boom" }], { isError: true }), { name: "snap" });
    expect(failed.functionResponse.response).toEqual({ error: "boom" });
  });

  it("Chat Completions: text in the tool message, and on request the images in one user message after the turn", async () => {
    const host = hostReturning(mixed.slice(0, 3));
    const call = { id: "call_1", type: "function" as const, function: { name: "snap", arguments: "{}" } };
    const [described] = await runOpenAIToolCalls(host, [call]);
    expect(described.content).toBe(
      "Here it is\n[image 1: image/png; not sent: Chat Completions tool messages take text only]\n[document 2: application/pdf; not sent: Chat Completions tool messages take text only]",
    );
    const messages = await runOpenAIToolCalls(host, [call], { chatMedia: "user-message" });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({ role: "tool", content: expect.stringContaining("sent in the user message after the tool results") });
    expect(messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Images and files returned by the tool calls call_1 (snap), in order:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "file", file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "report.pdf" } },
      ],
    });
  });

  it("an image too large for a provider is described, not sent; other providers still get it", async () => {
    const host = hostReturning([{ type: "image", mimeType: "image/png", data: bigImage }]);
    const anthropic = await runAnthropicToolUse(host, { type: "tool_use", id: "t", name: "snap", input: {} });
    expect(anthropic.content).toEqual([
      { type: "text", text: expect.stringMatching(/^\[image: image\/png, \d+ bytes; not sent: larger than Anthropic's 5 MB limit\]$/) },
    ]);
    const responses = await runOpenAIToolCall(host, { type: "function_call", call_id: "c", name: "snap", arguments: "{}" });
    expect(responses.output).toEqual([{ type: "input_image", image_url: `data:image/png;base64,${bigImage}` }]);
    const many = hostReturning(Array.from({ length: 4 }, () => ({ type: "image", mimeType: "image/png", data: "A".repeat(6 * 1024 * 1024) })));
    const gemini = await runGeminiFunctionCall(many, { name: "snap" });
    expect(gemini.functionResponse.parts).toHaveLength(3);
    expect(gemini.functionResponse.response).toEqual({ output: expect.stringContaining("not sent: the result would pass Gemini's 20 MB request limit") });
  });

  it("answers with structuredContent when asked, keeping images", async () => {
    const host = hostReturning(
      [
        { type: "text", text: "72°F and sunny" },
        { type: "image", mimeType: "image/png", data: PNG },
      ],
      { structuredContent: { temperature: 72 } },
    );
    const use = { type: "tool_use" as const, id: "t", name: "snap", input: {} };
    expect((await runAnthropicToolUse(host, use)).content[0]).toEqual({ type: "text", text: "72°F and sunny" });
    expect((await runAnthropicToolUse(host, use, { useStructuredContent: true })).content).toEqual([
      { type: "text", text: '{"temperature":72}' },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    ]);
    expect((await runGeminiFunctionCall(host, { name: "snap" }, { useStructuredContent: true })).functionResponse.response).toEqual({
      output: { temperature: 72 },
    });
  });
});
