/**
 * A list gathered from every server that is up and has the capability (resources, prompts): one
 * server's failure is reported and gives an empty share, so one broken server never hides the others'.
 */
import type { McpClient } from "../client/client.js";
import type { ServerCapabilities } from "../client/types.js";
import type { ServerRuntime } from "./server-runtime.js";

export async function fromEachServer<T>(
  runtimes: Iterable<ServerRuntime>,
  capability: keyof ServerCapabilities,
  list: (client: McpClient, server: string) => Promise<T[]>,
  report: (event: { server: string; error: Error }) => void,
): Promise<T[]> {
  const lists = await Promise.all(
    [...runtimes].map(async (runtime) => {
      const client = runtime.state === "up" ? runtime.client : undefined;
      if (!client?.serverCapabilities?.[capability]) return [];
      try {
        return await list(client, runtime.name);
      } catch (error) {
        report({ server: runtime.name, error: error as Error });
        return [];
      }
    }),
  );
  return lists.flat();
}
