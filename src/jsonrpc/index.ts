export * from "./messages.js";
export * from "./codes.js";
export * from "./ids.js";
export * from "./errors.js";
