/** A Switchboard with one scripted server "acme" (the synthetic SaaS tools) whose tools answer "did <tool> <args>". */
import { Switchboard } from "../../src/index.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { catalogServers } from "./queries.js";

export async function acmeBoard(cleanups: Array<() => Promise<void>>): Promise<Switchboard> {
  const tools = catalogServers().acme;
  const server = new ScriptedServer()
    .on("tools/list", () => ({ tools }))
    .on("tools/call", (request) => {
      const params = request.params as { name: string; arguments?: unknown };
      return { content: [{ type: "text", text: `did ${params.name} ${JSON.stringify(params.arguments ?? {})}` }] };
    });
  const board = new Switchboard({ servers: { acme: { transport: () => server.clientSide, protocol: "legacy" } } });
  cleanups.push(() => board.stop());
  await board.start();
  return board;
}
