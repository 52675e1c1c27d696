/**
 * docs/guide/switchboard.md, "Limits and faults": a stdio server that closes its stdout but stays alive can never answer again.
 * That is the end of the connection: everything pending fails at once with a retryable
 * TransportError that says what happened, and the server process is stopped. Before, calls waited for
 * their deadlines (60 s by default) and the process lived on.
 */
import { describe, expect, it } from "vitest";
import { connect, TransportError } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { isAlive, waitFor } from "../helpers/processes.js";

const track = closeAfterEach();
const node = process.execPath;
const SERVER = new URL("../fixtures/stdio-hostile-server.mjs", import.meta.url).pathname;

describe("a stdio server that closes stdout and lives on", () => {
  it("fails every pending request at once with a retryable TransportError, and is stopped", async () => {
    const client = track(await connect({ command: node, args: [SERVER], env: { IGNORE_STDIN_END: "1" } }, { protocol: "legacy", requestTimeoutMs: 30_000 }));
    const pid = client.connection.transport.pid!;
    const pending = client.callTool("hang").catch((e: unknown) => e);
    const closing = client.callTool("close-stdout").catch((e: unknown) => e);
    for (const error of await Promise.all([pending, closing])) {
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).retryable).toBe(true);
      expect((error as Error).message).toMatch(
        new RegExp(`MCP server "${node} ${SERVER}" closed its stdout but is still running \\(pid ${pid}\\); stopped it`),
      );
    }
    expect(client.state).toBe("failed");
    // Stopped the usual way (stdin closed, SIGTERM, SIGKILL): it ignores stdin's end, so SIGTERM ends it.
    await waitFor(() => !isAlive(pid), 10_000);
    await expect(client.callTool("echo")).rejects.toBeInstanceOf(TransportError);
  });

  it("a server that ends stdout as it exits is reported by its exit, as before", async () => {
    const client = track(await connect({ command: node, args: [SERVER] }, { protocol: "legacy" }));
    const error = await client.callTool("exit").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/exited with code 3/);
  });
});
