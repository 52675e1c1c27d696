#!/usr/bin/env node
// A server that lies: after a correct initialize it writes garbage (not JSON, JSON that is not JSON-RPC,
// a response for an id nobody asked) before each correct tools/call answer. Clients must survive it.
let buffered = "";
process.stdin.setEncoding("utf8");
const write = (value) => process.stdout.write(typeof value === "string" ? `${value}\n` : `${JSON.stringify(value)}\n`);
process.stdin.on("data", (chunk) => {
  const text = buffered + chunk;
  const lines = text.split("\n");
  buffered = lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    if (message.method === "initialize") {
      write({
        jsonrpc: "2.0",
        id: message.id,
        result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "garbage", version: "1" } },
      });
    } else if (message.method === "tools/call") {
      write("this is not json {");
      write({ hello: "not json-rpc" });
      write({ jsonrpc: "2.0", id: 987654, result: {} });
      write({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "ok despite garbage" }] } });
    } else {
      write({ jsonrpc: "2.0", id: message.id, result: { tools: [] } });
    }
  }
});
process.stdin.on("end", () => process.exit(0));
