/**
 * The JavaScript that runs inside the engine before the model's code: it builds `tools`, `console`,
 * a bounded `setTimeout` and `ToolError` from three host functions it receives as arguments (so no
 * host function is ever reachable from the model's code by name), and returns the runner that turns
 * the code's outcome into one JSON text. Only strings cross: arguments leave as JSON text made here,
 * results come back as JSON text parsed here, so no live object, function or Proxy crosses either way.
 */
/** Where the wrapper (strip.ts) puts the model's first line (the line before it opens the async function). */
export const FIRST_LINE = 2;

export const PRELUDE = String.raw`(function (hostCall, hostLog, hostSleep, catalogText) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const keys = Object.keys;
  const freeze = Object.freeze;
  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  class ToolError extends Error {
    constructor(message, tool) {
      super(message);
      this.name = "ToolError";
      this.tool = tool;
    }
  }
  const label = (server, tool) => "tools[" + stringify(server) + "][" + stringify(tool) + "]";
  const call = (server, tool, args) => {
    // The call site's stack: an error thrown when the answer arrives names the line that called.
    const site = new Error();
    let text;
    try {
      text = stringify(args === undefined ? {} : args);
    } catch (error) {
      return Promise.reject(new TypeError(label(server, tool) + ": the arguments are not JSON data (" + String(error && error.message) + ")"));
    }
    if (typeof text !== "string" || text[0] !== "{") {
      return Promise.reject(new TypeError(label(server, tool) + ": the arguments must be one object, got " + (args === null ? "null" : Array.isArray(args) ? "an array" : typeof args)));
    }
    return hostCall(server, tool, text).then((reply) => {
      const outcome = parse(reply);
      if (outcome.ok) return outcome.value;
      const error = outcome.name === "ToolError" ? new ToolError(outcome.message, server + "." + tool) : new Error(outcome.message);
      if (outcome.name !== "ToolError") error.name = outcome.name;
      error.stack = site.stack;
      throw error;
    });
  };
  const unknown = (server, tool) => () =>
    Promise.reject(new ToolError("unknown tool " + label(server, tool) + (hasOwn(catalog, server) ? "; this server has: " + catalog[server].join(", ") : "; the servers are: " + keys(catalog).join(", ")), server + "." + tool));
  const namespace = (server, names) => {
    const target = {};
    for (const name of names) target[name] = (args) => call(server, name, args);
    return new Proxy(freeze(target), {
      get: (t, key) => (typeof key !== "string" || hasOwn(t, key) || key === "then" ? t[key] : unknown(server, key)),
    });
  };
  const catalog = parse(catalogText);
  const spaces = {};
  for (const server of keys(catalog)) spaces[server] = namespace(server, catalog[server]);
  // A server the catalog lacks may be one the board has but that is not up: the host knows why, so
  // its calls go there to be refused with the server's state and last error.
  const elsewhere = (server) =>
    new Proxy(freeze({}), { get: (t, key) => (typeof key !== "string" || key === "then" ? t[key] : (args) => call(server, key, args)) });
  const tools = new Proxy(freeze(spaces), {
    get: (t, key) => (typeof key !== "string" || hasOwn(t, key) || key === "then" ? t[key] : elsewhere(key)),
  });
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return value.name + ": " + value.message;
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch {
      return String(value);
    }
  };
  const log = (level) => (...values) => hostLog(level, values.map(show).join(" "));
  const timers = new Map();
  let nextTimer = 1;
  const setTimeout = (fn, ms, ...rest) => {
    const id = nextTimer++;
    timers.set(id, true);
    hostSleep(typeof ms === "number" && ms > 0 ? ms : 0).then(() => {
      if (timers.delete(id) && typeof fn === "function") fn(...rest);
    });
    return id;
  };
  const clearTimeout = (id) => void timers.delete(id);
  Object.defineProperties(globalThis, {
    tools: { value: tools },
    ToolError: { value: ToolError },
    console: { value: freeze({ log: log("log"), info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug") }) },
    setTimeout: { value: setTimeout },
    clearTimeout: { value: clearTimeout },
  });
  const failure = (error) => {
    if (error instanceof Error) {
      return { ok: false, name: String(error.name), message: String(error.message), stack: String(error.stack || "") };
    }
    return { ok: false, name: "Error", message: "the code threw a value that is not an Error: " + show(error), stack: "" };
  };
  return (main) =>
    main().then(
      (value) => {
        try {
          return stringify({ ok: true, value: value === undefined ? null : value });
        } catch (error) {
          return stringify({ ok: false, name: "TypeError", message: "the returned value is not JSON data (" + String(error && error.message) + ")", stack: "" });
        }
      },
      (error) => {
        try {
          return stringify(failure(error));
        } catch {
          return stringify({ ok: false, name: "Error", message: "the code threw a value that cannot be shown", stack: "" });
        }
      },
    );
})`;
