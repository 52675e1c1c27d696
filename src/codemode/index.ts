export { codeMode, CodeMode, RUN_CODE, type CodeModeOptions, type CodeRunOptions, type CodeRunResult, type CodeRunError } from "./code-mode.js";
export type { CodeCall } from "./bridge.js";
export type { CodeModeEvents, CodeSpanInfo, CodeCallValue, CodeRunValue } from "./events.js";
export type { ToolIndex } from "./discovery.js";
