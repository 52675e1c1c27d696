/**
 * `@opentelemetry/api`, loaded on first use. It is an optional peer dependency: nothing in the package
 * imports it at load time (only its types, which vanish when compiled), so a user without telemetry
 * never loads it, and one without the package gets a ConfigError only when asking for telemetry.
 *
 * `require` gives the same module instance an `import` does in Node (the package's ESM entry is for
 * bundlers), and the API keeps its globals (providers, context manager, propagator) on `globalThis`
 * anyway, so the user's setup is ours.
 */
import { createRequire } from "node:module";
import { ConfigError } from "../jsonrpc/errors.js";

export type OtelApi = typeof import("@opentelemetry/api");

const load = createRequire(import.meta.url);
let api: OtelApi | undefined;

/** The API if something loaded it already (telemetry is on), without loading it. */
export function loadedOtelApi(): OtelApi | undefined {
  return api;
}

export function otelApi(): OtelApi {
  if (api !== undefined) return api;
  try {
    api = load("@opentelemetry/api") as OtelApi;
  } catch (error) {
    if ((error as { code?: unknown }).code === "MODULE_NOT_FOUND") {
      throw new ConfigError("telemetry needs @opentelemetry/api: install it (npm install @opentelemetry/api) or leave telemetry off", {
        field: "telemetry",
        cause: error,
      });
    }
    throw error;
  }
  return api;
}
