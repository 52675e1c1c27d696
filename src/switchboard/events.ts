/** What a Switchboard tells its listeners. */
import type { CircuitStateChange } from "../supervisor/circuit-breaker.js";
import type { LogParams } from "../connection/events.js";
import type { ToolChangedEvent } from "./tool-pins.js";
import type { FleetEvent } from "./fleet-seam.js";

export interface FallbackEvent {
  /** The qualified name the caller used. */
  name: string;
  from: string;
  to: string;
  reason: string;
  error: Error;
}

export interface SwitchboardEvents {
  up: [event: { server: string; restarts: number }];
  down: [event: { server: string; reason: string; error: Error | undefined }];
  restart: [event: { server: string; attempt: number; delayMs: number; error: Error }];
  /** A running server's connection ended (its restart, if any, follows as `restart`). */
  exit: [event: { server: string; error: Error }];
  fallback: [event: FallbackEvent];
  circuit: [event: { server: string } & CircuitStateChange];
  /** A server's tools, resources or prompts changed (or it restarted): aggregated lists were dropped. */
  listsChanged: [event: { server: string }];
  log: [event: { server: string; params: LogParams }];
  stderr: [event: { server: string; text: string }];
  /** A pinned tool's definition changed: it is quarantined until `approveToolChange(name)` (tool-pins.ts). */
  toolChanged: [event: ToolChangedEvent];
  /** The fleet (board option `fleet`): `degraded` / `restored` (Redis), `paused` / `resumed` (Retry-After), ... */
  fleet: [event: FleetEvent];
  /** Recoverable problems: a server's garbage, a hook that threw. */
  error: [event: { server?: string; error: Error }];
}
