import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { memoryPair } from "../../src/transports/memory.js";
import { toSdkTransport } from "../helpers/sdk-bridge.js";
import { gatewaysAfterEach } from "./helpers.js";

const { serve, sdkClient } = gatewaysAfterEach();

/** An in-process SDK server with a resource, a template (with completion) and a prompt, as a board entry. */
function library() {
  const server = new McpServer({ name: "library", version: "1.0.0" });
  server.registerResource("readme", "mem://readme", { mimeType: "text/plain" }, (uri) => ({ contents: [{ uri: uri.href, text: "read me" }] }));
  server.registerResource(
    "book",
    new ResourceTemplate("mem://books/{id}", { list: undefined, complete: { id: (value) => ["dune", "emma"].filter((b) => b.startsWith(value)) } }),
    {},
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: `book ${String(id)}` }] }),
  );
  server.registerPrompt(
    "greet",
    { argsSchema: { name: completable(z.string(), (value) => ["Ada", "Alan"].filter((n) => n.startsWith(value))) } },
    ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello ${name}` } }],
    }),
  );
  return {
    transport: () => {
      const [client, serverSide] = memoryPair();
      void server.connect(toSdkTransport(serverSide));
      return client;
    },
  };
}

describe("resources, templates, prompts and completions through the gateway", () => {
  it("lists and reads them from the server that owns them, names of prompts qualified", async () => {
    const gateway = await serve({ servers: { lib: library() } });
    const client = await sdkClient(gateway.url);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["mem://readme"]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(["mem://books/{id}"]);
    expect((await client.readResource({ uri: "mem://readme" })).contents).toEqual([{ uri: "mem://readme", text: "read me" }]);
    // A templated URI never listed: its owner is found by the template.
    expect((await client.readResource({ uri: "mem://books/dune" })).contents).toEqual([{ uri: "mem://books/dune", text: "book dune" }]);
    await expect(client.readResource({ uri: "mem://nowhere" })).rejects.toThrow(/Resource not found/);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["lib__greet"]);
    const prompt = await client.getPrompt({ name: "lib__greet", arguments: { name: "Ada" } });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Hello Ada" });
  });

  it("completes prompt and template arguments on their server", async () => {
    const gateway = await serve({ servers: { lib: library() } });
    const client = await sdkClient(gateway.url);
    const names = await client.complete({ ref: { type: "ref/prompt", name: "lib__greet" }, argument: { name: "name", value: "A" } });
    expect(names.completion.values).toEqual(["Ada", "Alan"]);
    const books = await client.complete({ ref: { type: "ref/resource", uri: "mem://books/{id}" }, argument: { name: "id", value: "d" } });
    expect(books.completion.values).toEqual(["dune"]);
    const none = await client.complete({ ref: { type: "ref/prompt", name: "nobody__x" }, argument: { name: "a", value: "" } });
    expect(none.completion.values).toEqual([]);
  });
});

describe("MCP Apps through the gateway", () => {
  it("a tool's _meta.ui and its ui:// resource (mime type, _meta, HTML) reach the client unchanged", async () => {
    const ui = { resourceUri: "ui://weather/forecast.html", csp: { connectDomains: ["https://api.example.test"] }, prefersBorder: true };
    const html = '<!doctype html><div id="forecast"></div><script type="module">window.parent.postMessage({ jsonrpc: "2.0" }, "*")</script>';
    const server = new McpServer({ name: "weather", version: "1.0.0" });
    server.registerTool("forecast", { description: "A forecast, shown in its app.", _meta: { ui } }, async () => ({
      content: [{ type: "text", text: "sunny" }],
      structuredContent: { sky: "sunny" },
      _meta: { ui: { resourceUri: ui.resourceUri } },
    }));
    server.registerResource("forecast-app", ui.resourceUri, { mimeType: "text/html;profile=mcp-app", _meta: { ui: { prefersBorder: true } } }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/html;profile=mcp-app", text: html, _meta: { ui: { csp: ui.csp } } }],
    }));
    const gateway = await serve({
      servers: {
        weather: {
          transport: () => {
            const [client, serverSide] = memoryPair();
            void server.connect(toSdkTransport(serverSide));
            return client;
          },
        },
      },
    });
    const client = await sdkClient(gateway.url);
    const [tool] = (await client.listTools()).tools;
    expect(tool).toMatchObject({ name: "weather__forecast", _meta: { ui } });
    const result = await client.callTool({ name: "weather__forecast", arguments: {} });
    expect(result).toMatchObject({ structuredContent: { sky: "sunny" }, _meta: { ui: { resourceUri: ui.resourceUri } } });
    const [listed] = (await client.listResources()).resources;
    expect(listed).toMatchObject({ uri: ui.resourceUri, mimeType: "text/html;profile=mcp-app", _meta: { ui: { prefersBorder: true } } });
    const read = await client.readResource({ uri: ui.resourceUri });
    expect(read.contents).toEqual([{ uri: ui.resourceUri, mimeType: "text/html;profile=mcp-app", text: html, _meta: { ui: { csp: ui.csp } } }]);
  });
});
