// stdio entry for the SDK v2 test server. argv[2]: "dual" (default; serves 2025 clients too) or "modern-only".
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createModernServer } from "./modern-tools.mjs";

const legacy = process.argv[2] === "modern-only" ? "reject" : "serve";
serveStdio(() => createModernServer(`modern-stdio-${legacy === "reject" ? "modern-only" : "dual"}`), { legacy });
