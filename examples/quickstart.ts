/**
 * `npm start`: connects to the bundled echo server over stdio, lists its tools, calls two of them
 * (one with progress), and closes. No configuration needed.
 */
import { fileURLToPath } from "node:url";
import { connect } from "../src/index.js";

const server = fileURLToPath(new URL("./servers/echo-server.mjs", import.meta.url));
const client = await connect({ command: process.execPath, args: [server] });
console.log(`Connected to ${client.serverInfo?.name} ${client.serverInfo?.version} (protocol ${client.protocolVersion})`);

const tools = await client.listTools();
console.log(`Tools: ${tools.map((tool) => tool.name).join(", ")}`);

const echoed = await client.callTool("echo", { text: "hello, switchboard" });
console.log("echo ->", echoed.content[0]?.type === "text" ? echoed.content[0].text : echoed.content);

const done = await client.callTool(
  "progress",
  { steps: 3, delayMs: 100 },
  {
    onProgress: ({ progress, total }) => console.log(`  progress ${progress}/${total ?? "?"}`),
  },
);
console.log("progress ->", done.content[0]?.type === "text" ? done.content[0].text : done.content);

await client.close();
console.log("Closed cleanly.");
