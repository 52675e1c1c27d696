/**
 * The conformance runner's client scenarios other than authorization, one function each, all through
 * the public API. Each does what a host would do with such a server (list, call, read), so the runner
 * sees the wire a real user's client would produce; the checks themselves are the runner's.
 */
import type { McpClient } from "../../src/index.js";
import { clientOptions, contextToolCalls, print, sampleArguments, withClient } from "./client.js";
import type { ConformanceEnv, Scenario } from "./env.js";
import { skillScenarios } from "./skills.js";

/** Calls every tool the server lists, with the context's arguments where it gives some. */
async function callEveryTool(client: McpClient, env: ConformanceEnv): Promise<void> {
  const prescribed = new Map(contextToolCalls(env).map((call) => [call.name, call.arguments]));
  for (const tool of await client.listTools()) {
    const result = await client.callTool(tool.name, prescribed.get(tool.name) ?? sampleArguments(tool), { throwOnError: true });
    print(tool.name, result.content);
  }
}

export const coreScenarios: Record<string, Scenario> = {
  // The handshake is the test (2025 era); a ping proves the session works afterwards.
  initialize: (env) => withClient(env, clientOptions(env), (client) => client.ping()),

  tools_call: (env) =>
    withClient(env, clientOptions(env), async (client) => {
      const tools = await client.listTools();
      if (!tools.some((tool) => tool.name === "add_numbers")) throw new Error("the server does not list add_numbers");
      print("add_numbers", (await client.callTool("add_numbers", { a: 5, b: 3 }, { throwOnError: true })).content);
    }),

  // The user accepts the form without filling anything in: the client must send every field's default.
  "elicitation-sep1034-client-defaults": (env) => withClient(env, clientOptions(env), (client) => callEveryTool(client, env)),

  // The server ends the tools/call stream after a priming event; the answer arrives only on the stream
  // the client must reopen, after the advertised `retry`, with Last-Event-ID.
  "sse-retry": (env) => withClient(env, clientOptions(env), (client) => callEveryTool(client, env)),

  // Every request carries the 2026 envelope and headers; the server refuses the first with -32022 and
  // the client must retry with a version the server named.
  "request-metadata": (env) =>
    withClient(env, clientOptions(env), async (client) => {
      // The server declares no capabilities: the only thing to ask it is whether it is there.
      await client.ping();
      print("protocolVersion", client.protocolVersion);
    }),

  // Input-required results: answer the elicitation, echo requestState byte for byte, use a new id,
  // keep one call's state out of another, and take a result without resultType as complete.
  "sep-2322-client-request-state": (env) =>
    withClient(env, clientOptions(env), async (client) => {
      const tools = await client.listTools();
      const results = await Promise.all(tools.map((tool) => client.callTool(tool.name, {}, { throwOnError: true })));
      results.forEach((result, i) => print(tools[i].name, result.content));
    }),

  // Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get.
  "http-standard-headers": (env) =>
    withClient(env, clientOptions(env), async (client) => {
      await callEveryTool(client, env);
      for (const resource of await client.listResources()) print(resource.uri, (await client.readResource(resource.uri)).contents);
      for (const prompt of await client.listPrompts()) print(prompt.name, (await client.getPrompt(prompt.name)).messages);
    }),

  // x-mcp-header parameters mirrored into Mcp-Param-* headers, encoded where the value needs it.
  "http-custom-headers": (env) => withClient(env, clientOptions(env), (client) => callEveryTool(client, env)),

  // Tools with invalid x-mcp-header declarations are dropped from the list; the valid one still works.
  "http-invalid-tool-headers": (env) => withClient(env, clientOptions(env), (client) => callEveryTool(client, env)),

  // A tool's inputSchema $ref to a network URI is data: listing (and the header checks that walk each
  // schema) must never fetch it.
  "json-schema-ref-no-deref": (env) =>
    withClient(env, clientOptions(env), async (client) => {
      for (const tool of await client.listTools()) print(tool.name, tool.inputSchema);
    }),

  // The client keeps a tool's inputSchema exactly as served: echo it back through the echo tool.
  "json-schema-2020-12-preservation": (env) =>
    withClient(env, clientOptions(env), async (client) => {
      const tools = await client.listTools();
      const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
      if (!focal) throw new Error("the server does not list json_schema_2020_12_tool");
      print("json_schema_echo", (await client.callTool("json_schema_echo", { schema: focal.inputSchema }, { throwOnError: true })).content);
    }),

  ...skillScenarios,
};
