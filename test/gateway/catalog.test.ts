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
