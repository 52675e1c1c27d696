/**
 * What the board says that downstream clients should hear: a list that changed (a server restarted,
 * its tools changed) becomes the three `list_changed` notifications, once per burst; an upstream log
 * message goes to the clients that asked for its level (`logging/setLevel`), tagged with its server.
 */
import type { Switchboard } from "../switchboard/switchboard.js";
import { wantsLog, type Downstream } from "./downstream.js";

const LIST_CHANGED = ["notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed"];

/** Starts forwarding; the function returned stops it. */
export function forwardBoardEvents(board: Switchboard, downstreams: () => Iterable<Downstream>): () => void {
  let pending: NodeJS.Immediate | undefined;
  const listsChanged = () => {
    pending ??= setImmediate(() => {
      pending = undefined;
      for (const downstream of downstreams()) for (const method of LIST_CHANGED) downstream.push({ jsonrpc: "2.0", method });
    });
  };
  const log = ({ server, params }: { server: string; params: { level: Downstream["logLevel"] & string; logger?: string; data?: unknown } }) => {
    for (const downstream of downstreams())
      if (wantsLog(downstream, params.level))
        downstream.push({ jsonrpc: "2.0", method: "notifications/message", params: { ...params, logger: params.logger ?? server } });
  };
  board.on("listsChanged", listsChanged);
  board.on("log", log);
  return () => {
    board.off("listsChanged", listsChanged);
    board.off("log", log);
    if (pending !== undefined) clearImmediate(pending);
  };
}
