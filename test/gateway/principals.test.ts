/**
 * Auth in front, principals behind: two API keys of two principals, one upstream Streamable HTTP server
 * (the SDK's) that lists each user a tool of its own by the credential it is sent. Through the gateway
 * each principal sees its own list and calls as itself (the board's `principalHeaders` gives the
 * upstream credential), and no downstream key ever reaches the upstream server in any header.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { gatewaysAfterEach } from "./helpers.js";

const { serve, sdkClient, track } = gatewaysAfterEach();

const userOf = (authorization: unknown) => (typeof authorization === "string" ? authorization.replace(/^Bearer upstream-/, "") : "anonymous");

/** Each session lists `whoami` and a tool private to the user whose credential opened it. */
function usersServer() {
  return startStreamableHttpServer({
    stateful: true,
    createServer: (_name, request) => {
      const user = userOf(request.headers.authorization);
      const mcp = new McpServer({ name: "users", version: "1.0.0" });
      mcp.registerTool("whoami", { description: "Who is calling." }, async () => ({ content: [{ type: "text", text: user }] }));
      mcp.registerTool(`${user}_private`, { description: `Only for ${user}.` }, async () => ({ content: [{ type: "text", text: user }] }));
      return mcp;
    },
  });
}

const KEYS = { "downstream-key-of-ada-0001": "ada", "downstream-key-of-bob-0002": "bob" };

describe("principals through the gateway", () => {
  it("two API keys, two principals: each sees its own tools and calls as itself; no downstream key reaches the upstream", async () => {
    const upstream = track(await usersServer());
    const gateway = await serve(
      {
        servers: { api: { url: upstream.url, principalHeaders: (principal) => ({ authorization: `Bearer upstream-${principal}` }) } },
        client: { protocol: "legacy" },
      },
      { auth: { apiKeys: KEYS } },
    );
    const ada = await sdkClient(gateway.url, { authorization: "Bearer downstream-key-of-ada-0001" });
    const bob = await sdkClient(gateway.url, { authorization: "Bearer downstream-key-of-bob-0002" });

    const adaTools = (await ada.listTools()).tools.map((t) => t.name).sort();
    const bobTools = (await bob.listTools()).tools.map((t) => t.name).sort();
    expect(adaTools).toEqual(["api__ada_private", "api__whoami"]);
    expect(bobTools).toEqual(["api__bob_private", "api__whoami"]);
    expect((await ada.callTool({ name: "api__whoami", arguments: {} })).content).toEqual([{ type: "text", text: "ada" }]);
    expect((await bob.callTool({ name: "api__whoami", arguments: {} })).content).toEqual([{ type: "text", text: "bob" }]);
    // Another principal's tool is not there for a caller (its own server session has no such tool).
    const crossed = await bob.callTool({ name: "api__ada_private", arguments: {} }).catch((error: unknown) => error);
    expect(crossed).not.toMatchObject({ content: [{ type: "text", text: "ada" }] });

    const sent = upstream.requests.map((r) => r.authorization ?? "");
    expect(sent).toContain("Bearer upstream-ada");
    expect(sent).toContain("Bearer upstream-bob");
    for (const key of Object.keys(KEYS)) expect(sent.some((header) => header.includes(key))).toBe(false);
  });
});
