#!/usr/bin/env node
// The bundled echo server over stdio (the official SDK's McpServer). Used by the quickstart, tests and benchmarks.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createEchoServer } from "./echo-tools.mjs";

const server = createEchoServer(process.env.ECHO_SERVER_NAME ?? "echo-server");
await server.connect(new StdioServerTransport());
if (process.env.ECHO_SERVER_STDERR) process.stderr.write(`${process.env.ECHO_SERVER_STDERR}\n`);
