export * from "./errors.js";
export * from "./ndjson.js";
