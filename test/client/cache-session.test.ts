/**
 * The cache across a new session: a server that restarted (forgot its sessions) may now offer other
 * tools, so nothing cached under the old session is served under the new one.
 */
import { afterEach, expect, it } from "vitest";
import { connect, type McpClient } from "../../src/index.js";
import { startStreamableHttpServer, type StreamableServer } from "../fixtures/http-servers.js";

let server: StreamableServer | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

it("a session the server forgot drops the cached lists; the next listTools asks the new session", async () => {
  server = await startStreamableHttpServer({ stateful: true });
  client = await connect({ url: server.url }, { protocol: "legacy" });
  const toolLists = () => server!.requests.filter((r) => r.rpc === "tools/list");
  await client.listTools();
  await client.listTools();
  expect(toolLists()).toHaveLength(1);
  server.forgetSessions();
  const sessionsBefore = new Set(server.requests.map((r) => r.session).filter(Boolean));
  await client.callTool("echo", { text: "after restart" }); // 404 -> re-initialize -> sent again
  await client.listTools();
  expect(toolLists()).toHaveLength(2);
  expect(sessionsBefore.has(toolLists()[1].session)).toBe(false);
});
