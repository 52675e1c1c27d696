/** Events a connection (and so an McpClient) emits. */
import type { ConnectionState } from "./machine.js";

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

export interface LogParams {
  level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  logger?: string;
  data?: unknown;
  [key: string]: unknown;
}

export interface NotificationEvent {
  method: string;
  params: Record<string, unknown> | undefined;
}

export interface ConnectionEvents {
  state: [state: ConnectionState];
  /** Every notification from the server, including those that also have their own event. */
  notification: [notification: NotificationEvent];
  progress: [params: ProgressParams];
  log: [params: LogParams];
  toolsChanged: [];
  resourcesChanged: [];
  promptsChanged: [];
  resourceUpdated: [params: { uri: string; [key: string]: unknown }];
  /** The server cancelled one of its own requests to the client (the handler's signal is already aborted). */
  cancelled: [params: { requestId: string | number; reason?: string; [key: string]: unknown }];
  stderr: [text: string];
  /** Something recoverable went wrong: garbage on the wire, an unknown response id, a handler failure. */
  error: [error: Error];
  /** The connection ended: `error` is set when it failed. */
  close: [error?: Error];
}
