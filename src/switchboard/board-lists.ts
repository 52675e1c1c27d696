/**
 * A list gathered from every server that is up and has the capability (resources, prompts): one
 * server's failure is reported and gives an empty share, so one broken server never hides the others'.
 * With a fleet, a server's list comes from the fleet's current copy when there is one (shared-lists.ts).
 */
import type { McpClient } from "../client/client.js";
import type { ServerRuntime } from "./server-runtime.js";
import { listShared } from "./shared-lists.js";

export async function fromEachServer<R, T>(
  runtimes: Iterable<ServerRuntime>,
  kind: "resources" | "prompts",
  fetch: (client: McpClient) => Promise<R[]>,
  shape: (item: R, server: string) => T,
  /** Where a server's failure goes: the board's `error` event. */
  board: { emit(event: "error", payload: { server: string; error: Error }): unknown },
): Promise<T[]> {
  const lists = await Promise.all(
    [...runtimes].map(async (runtime) => {
      const client = runtime.state === "up" ? runtime.client : undefined;
      if (!client?.serverCapabilities?.[kind]) return [];
      try {
        const items = await listShared(runtime.fleetLists, kind, client, () => fetch(client));
        return items.map((item) => shape(item, runtime.name));
      } catch (error) {
        board.emit("error", { server: runtime.name, error: error as Error });
        return [];
      }
    }),
  );
  return lists.flat();
}
