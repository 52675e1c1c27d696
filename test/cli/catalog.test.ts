/**
 * resources, read, prompts and prompt against the bundled demo server: text for people, --json for
 * scripts, the owner of a URI found by listing (or --server when two servers offer it), exit codes.
 */
import { describe, expect, it } from "vitest";
import { configFile, demoEntry, run } from "./run-cli.js";

const one = configFile({ demo: demoEntry() });
const two = configFile({ a: demoEntry(), b: demoEntry() });

describe("resources and read", () => {
  it("resources: a table of resources and templates, or both lists as JSON, each with its server", async () => {
    const text = await run(["resources", "-c", one]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^SERVER\s+URI\s+NAME\s+MIME TYPE\s+DESCRIPTION$/m);
    expect(text.out).toMatch(/^demo\s+demo:\/\/readme\s+readme\s+text\/markdown\s+What this server is\.$/m);
    expect(text.out).toMatch(/^demo\s+demo:\/\/greeting\/\{name\}\s+greeting\s+text\/plain/m);
    expect(text.err).toBe("2 resources, 1 template from 1 server");
    const json = JSON.parse((await run(["resources", "-c", one, "--json"])).out);
    expect(json.resources.map((r: { uri: string; server: string }) => `${r.server} ${r.uri}`)).toEqual(["demo demo://readme", "demo demo://logo.png"]);
    expect(json.resourceTemplates).toEqual([expect.objectContaining({ server: "demo", uriTemplate: "demo://greeting/{name}" })]);
  });

  it("read: text as it is, binary summarised with its type and size; --json gives the result", async () => {
    const readme = await run(["read", "demo://readme", "-c", one]);
    expect(readme).toMatchObject({ code: 0, out: "# mcp-switchboard demo\n\nA small MCP server over stdio with tools, resources and prompts." });
    const logo = await run(["read", "demo://logo.png", "-c", one]);
    expect(logo.out).toBe("[binary demo://logo.png: image/png, 70 bytes; --json shows it as base64]");
    const json = JSON.parse((await run(["read", "demo://logo.png", "-c", one, "--json"])).out);
    expect(json.contents[0]).toMatchObject({ uri: "demo://logo.png", mimeType: "image/png" });
    expect(Buffer.from(json.contents[0].blob, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  it("read: a URI no server lists is found through a matching template", async () => {
    expect(await run(["read", "demo://greeting/Ada", "-c", one])).toMatchObject({ code: 0, out: "Hello, Ada!" });
  });

  it("read: two servers offering a URI need --server (exit 2); with it, that server answers", async () => {
    const ambiguous = await run(["read", "demo://readme", "-c", two]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toMatch(/demo:\/\/readme is offered by the servers a, b: pass --server NAME to pick one/);
    expect(await run(["read", "demo://greeting/x", "-c", two])).toMatchObject({ code: 2 });
    expect(await run(["read", "demo://readme", "--server", "b", "-c", two])).toMatchObject({ code: 0, out: expect.stringMatching(/^# mcp-switchboard demo/) });
  });

  it("read: no URI is a usage error; an unknown URI or server fails with where to look", async () => {
    expect(await run(["read", "-c", one])).toMatchObject({ code: 2, err: expect.stringMatching(/read needs a resource URI/) });
    const unknown = await run(["read", "demo://nothing", "-c", one]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/No server lists resource demo:\/\/nothing .*pass --server NAME/);
    const asked = await run(["read", "demo://nothing", "--server", "demo", "-c", one]);
    expect(asked.code).toBe(1);
    expect(asked.err).toMatch(/Resource not found: demo:\/\/nothing/);
    expect((await run(["read", "demo://readme", "--server", "nope", "-c", one])).err).toMatch(/unknown server "nope"/);
  });
});

describe("prompts and prompt", () => {
  it("prompts: names qualified, arguments with the required ones starred; or JSON", async () => {
    const text = await run(["prompts", "-c", one]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^demo__greet\s+name\*, style\s+Asks for a greeting\.$/m);
    expect(text.out).toMatch(/^demo__explain_readme\s+Asks to explain the README/m);
    expect(text.err).toBe("2 prompts from 1 server");
    const json = JSON.parse((await run(["prompts", "-c", one, "--json"])).out);
    expect(json.map((p: { name: string }) => p.name)).toEqual(["demo__greet", "demo__explain_readme"]);
  });

  it("prompt: each message with its role; embedded resources as their text; numbers passed as text", async () => {
    const greet = await run(["prompt", "demo__greet", '{"name":"Ada","style":"formal"}', "-c", one]);
    expect(greet).toMatchObject({ code: 0, out: "A greeting\n\n[user]\nGreet Ada in a formal way." });
    const number = await run(["prompt", "demo__greet", '{"name":42}', "-c", one]);
    expect(number.out).toMatch(/Greet 42 in a friendly way/);
    const readme = await run(["prompt", "demo__explain_readme", "-c", one]);
    expect(readme.out).toMatch(/^\[user\]\n# mcp-switchboard demo[\s\S]*\n\n\[user\]\nExplain this README in one sentence\.$/);
    const json = JSON.parse((await run(["prompt", "demo__greet", '{"name":"Ada"}', "-c", one, "--json"])).out);
    expect(json.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Ada in a friendly way." } }]);
  });

  it("prompt: usage errors exit 2; the server's refusal exits 1 with its message", async () => {
    expect(await run(["prompt", "-c", one])).toMatchObject({ code: 2, err: expect.stringMatching(/prompt needs a prompt name/) });
    expect(await run(["prompt", "demo__greet", '{"name":{"first":"Ada"}}', "-c", one])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/The argument "name" of prompt demo__greet must be a string/),
    });
    const missing = await run(["prompt", "demo__greet", "-c", one]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/Missing required argument "name" for prompt greet/);
    expect((await run(["prompt", "demo__nope", "-c", one])).err).toMatch(/Unknown prompt: nope/);
  });
});

describe("matching a URI to a resource template", () => {
  it("{x} is one path segment; {+x} and the other operators may span more", async () => {
    const { matchesTemplate } = await import("../../src/cli/catalog-commands.js");
    expect(matchesTemplate("demo://greeting/{name}", "demo://greeting/Ada")).toBe(true);
    expect(matchesTemplate("demo://greeting/{name}", "demo://greeting/a/b")).toBe(false);
    expect(matchesTemplate("demo://greeting/{name}", "demo://greeting/")).toBe(false);
    expect(matchesTemplate("file:///{+path}", "file:///etc/hosts")).toBe(true);
    expect(matchesTemplate("a.b://{x}", "aXb://y")).toBe(false); // literal parts match literally
  });
});
