/** Where the examples find the reference server, @modelcontextprotocol/server-everything (a devDependency), run over stdio. */
import { fileURLToPath } from "node:url";

export const everythingServer = {
  command: process.execPath,
  args: [fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url)), "stdio"],
};
