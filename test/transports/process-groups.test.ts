/**
 * docs/guide/switchboard.md, "Limits and faults": a server started through a launcher has the real server as a grandchild, and
 * servers start children of their own. Each stdio server runs in its own process group and every signal
 * goes to the group: `close()`, a server that exits on its own, and the parent's exit or Ctrl-C leave
 * nothing running (checked with `ps`). POSIX only; Windows is documented, not tested here.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { connect, ConnectionClosedError } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { groupMembers, running } from "../helpers/process-groups.js";
import { waitFor } from "../helpers/processes.js";

const track = closeAfterEach();
const node = process.execPath;
const SERVER = new URL("../fixtures/stdio-hostile-server.mjs", import.meta.url).pathname;
const PARENT_APP = new URL("../fixtures/stdio-parent-app.ts", import.meta.url).pathname;

/** Connects to the hostile server through `sh -c`, and has it start a child; resolves with the pids. */
async function launched(script: string) {
  const client = track(await connect({ command: "sh", args: ["-c", script], env: { IGNORE_STDIN_END: "1" } }, { protocol: "legacy" }));
  const leader = client.connection.transport.pid!;
  const child = Number(((await client.callTool("spawn-child")).content[0] as { text: string }).text);
  expect(running([leader, child])).toEqual([leader, child]);
  return { client, leader, child };
}

describe.skipIf(process.platform === "win32")("process groups", () => {
  it('close() of `sh -c "exec node server.mjs"` ends the server and the child it started', async () => {
    const { client, leader, child } = await launched(`exec "${node}" "${SERVER}"`);
    expect(groupMembers(leader).sort()).toEqual([leader, child].sort());
    await client.close();
    expect(running([leader, child])).toEqual([]);
    expect(groupMembers(leader)).toEqual([]);
  });

  it('close() of `sh -c "node server.mjs; …"` (the server a grandchild of the launcher) ends all three', async () => {
    const { client, leader, child } = await launched(`"${node}" "${SERVER}"; echo done`);
    const members = groupMembers(leader);
    expect(members).toHaveLength(3); // sh, the server, its child
    await client.close();
    expect(running([...members, child])).toEqual([]);
  });

  it("a server that exits by itself: its children are ended too, and the exit is reported", async () => {
    const { client, leader, child } = await launched(`exec "${node}" "${SERVER}"`);
    const closed = new Promise<Error | undefined>((resolve) => client.on("close", resolve));
    await client.callTool("exit").catch(() => {});
    const error = await closed;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error!.message).toMatch(/exited with code 3/);
    await waitFor(() => running([leader, child]).length === 0);
  });

  it("a server that exits while a daemon it started (another session) holds its stdout: the exit is still reported", async () => {
    const client = track(await connect({ command: node, args: [SERVER] }, { protocol: "legacy" }));
    const daemon = new Promise<number>((resolve) => client.on("log", (l) => resolve(l.data as number)));
    const closed = new Promise<Error | undefined>((resolve) => client.on("close", resolve));
    void client.callTool("daemon-exit").catch(() => {});
    const pid = await daemon;
    track({ close: async () => void process.kill(pid, "SIGKILL") }); // out of our reach by design: the test ends it
    expect((await closed)?.message).toMatch(/exited with code 4/);
    expect(running([pid])).toEqual([pid]);
  });

  for (const how of ["exit", "SIGINT", "SIGTERM"] as const) {
    it(`the parent's ${how === "exit" ? "process.exit()" : how} ends every server group it started`, async () => {
      const app = spawn(node, ["--import", "tsx", PARENT_APP, how === "exit" ? "exit" : "wait"], { stdio: ["ignore", "pipe", "pipe"] });
      track({ close: async () => void app.kill("SIGKILL") });
      let out = "";
      app.stdout.on("data", (c) => (out += c));
      await waitFor(() => out.includes("\n"), 60_000);
      const { server, child } = JSON.parse(out) as { server: number; child: number };
      const exited = new Promise<string>((resolve) => app.on("exit", (code, signal) => resolve(signal ?? `code ${code}`)));
      if (how !== "exit") {
        expect(running([server, child])).toEqual([server, child]);
        app.kill(how);
      }
      // A signal the application does not handle still ends it, as it would have without servers.
      expect(await exited).toBe(how === "exit" ? "code 0" : how);
      await waitFor(() => running([server, child]).length === 0);
      // The bound is for CPU work: the application starts through tsx (compiling the client) and then
      // starts its servers, seconds apiece on a loaded 2-core machine; nothing here waits on a clock.
    }, 90_000);
  }
});
