/**
 * The automatic listen of the 2026 era. In the 2025 era `list_changed` notifications arrive unasked;
 * in the 2026 era only on a `subscriptions/listen` stream. So that `toolsChanged`, `resourcesChanged`
 * and `promptsChanged` (and every cache that relies on them: the client's, the Switchboard's) work in
 * both eras without the user doing anything, a ready 2026 connection opens one listen for the kinds
 * whose `listChanged` the server advertises (as the SDK v2 client does when list-changed handlers are
 * configured). It never fails the connection: a refusal is reported as an `error` event.
 */
import { McpError } from "../../jsonrpc/errors.js";
import { isObject } from "../../util/guards.js";
import type { ListKind, Wire } from "./dialect.js";
import type { ListenFilter, Subscription } from "./listen.js";
import { announceListChanged } from "./notifications.js";

const KINDS: readonly { kind: ListKind; flag: "toolsListChanged" | "resourcesListChanged" | "promptsListChanged" }[] = [
  { kind: "tools", flag: "toolsListChanged" },
  { kind: "resources", flag: "resourcesListChanged" },
  { kind: "prompts", flag: "promptsListChanged" },
];

/** The listen filter for what the server advertises, or undefined when it advertises no `listChanged`. */
export function autoListenFilter(capabilities: Record<string, unknown>): ListenFilter | undefined {
  const filter: ListenFilter = {};
  for (const { kind, flag } of KINDS) {
    const capability = capabilities[kind];
    if (isObject(capability) && capability.listChanged === true) filter[flag] = true;
  }
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/**
 * Opens the listen in the background. After a drop the Subscription listens again by itself; what
 * changed while no stream was open is unknown, so each honoured kind is announced as changed then.
 * `open` is the dialect's `listen`, which tracks the subscription and closes it on dispose.
 */
export function startAutoListen(wire: Wire, filter: ListenFilter, open: (filter: ListenFilter) => Promise<Subscription>, disposed: () => boolean): void {
  open(filter).then(
    (subscription) => {
      subscription.on("relisten", () => {
        for (const { kind, flag } of KINDS) if (subscription.honoured[flag] === true) announceListChanged(wire, kind);
      });
      void subscription.closed.then((how) => {
        if (how === "local" || disposed()) return;
        wire.emit(
          "error",
          new McpError(
            `The automatic subscriptions/listen ended (${how === "graceful" ? "the server ended it" : "lost, and re-listening gave up"}); list change events stop until the next connection`,
          ),
        );
      });
    },
    (error: unknown) => {
      if (disposed()) return; // closed while the listen was opening
      const reason = error instanceof Error ? error.message : String(error);
      wire.emit(
        "error",
        new McpError(
          `The automatic subscriptions/listen for ${Object.keys(filter).join(", ")} failed: ${reason}; list change events will not arrive on this connection`,
          { cause: error },
        ),
      );
    },
  );
}
