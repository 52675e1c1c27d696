/**
 * `npx tsx examples/progress.ts`: progress of a long-running tool. Passing `onProgress` makes the client
 * send a progress token; each `notifications/progress` for it arrives there. `resetTimeoutOnProgress`
 * keeps a slow but moving call alive past `timeoutMs`, up to `maxTotalTimeoutMs`. Every progress
 * notification (of any request) is also a `progress` event on the client.
 */
import { connect } from "../src/index.js";
import { everythingServer } from "./everything.js";

const client = await connect(everythingServer);

const result = await client.callTool(
  "trigger-long-running-operation",
  { duration: 1, steps: 4 },
  {
    onProgress: ({ progress, total, message }) => console.log(`progress ${progress}/${total ?? "?"}${message ? ` ${message}` : ""}`),
    timeoutMs: 500, // shorter than the whole operation: each progress step restarts it
    resetTimeoutOnProgress: true,
    maxTotalTimeoutMs: 10_000,
  },
);
for (const block of result.content) if (block.type === "text") console.log(block.text);
await client.close();
