/**
 * docs/guide/switchboard.md, "Limits and faults": a server behind Starlette answers `POST /mcp` with 307 to `/mcp/`. The client
 * follows 307/308 on the same origin (method and body kept, at most 5 hops) and sends later requests
 * (POSTs, the GET stream, the DELETE) straight to where it ended. A redirect to another origin is
 * refused, so credentials never leave for a server the user did not name.
 */
import { describe, expect, it } from "vitest";
import { connect, TransportError } from "../../src/index.js";
import type { StreamableHttpTransport } from "../../src/transports/streamable-http.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { honestAnswer, replyJson, startHostileHttp, type HostileRequest } from "../fixtures/hostile-http.js";

const track = closeAfterEach();

function redirect(res: HostileRequest["res"], status: number, location: string): true {
  res.writeHead(status, { location, "content-length": "0" }).end();
  return true;
}

describe("same-origin redirects", () => {
  it("follows Starlette's 307 from /mcp to /mcp/ and sends every later request to /mcp/", async () => {
    const server = track(
      await startHostileHttp(({ path, res, method, body }) => {
        if (path === "/mcp") return redirect(res, 307, "/mcp/");
        if (body?.method === "initialize") {
          res.setHeader("mcp-session-id", "s1");
          replyJson(res, body.id, honestAnswer(body));
          return true;
        }
        if (method === "GET") {
          res.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders();
          return true;
        }
        return false;
      }),
    );
    const client = track(await connect({ url: server.url, auth: { token: "t0k" } }, { protocol: "legacy" }));
    expect((await client.callTool("echo", { a: 1 })).content).toEqual([{ type: "text", text: '{"a":1}' }]);
    expect((client.connection.transport as StreamableHttpTransport).endpoint.href).toBe(`${server.url}/`);
    await client.close();
    const seen = server.requests.map((r) => `${r.method} ${r.path} ${r.body?.method ?? ""}`.trim());
    // Only the first POST met the redirect; the body went along unchanged, with the credentials.
    expect(seen.filter((line) => line.startsWith("POST /mcp ") || line === "POST /mcp")).toEqual(["POST /mcp initialize"]);
    expect(seen).toContain("POST /mcp/ initialize");
    expect(seen).toContain("GET /mcp/");
    expect(seen).toContain("POST /mcp/ tools/call");
    expect(seen.at(-1)).toBe("DELETE /mcp/");
    expect(server.requests.filter((r) => r.path === "/mcp/").every((r) => r.headers.authorization === "Bearer t0k")).toBe(true);
  });

  it("follows a 308 chain of up to 5 hops, and refuses the sixth as a loop", async () => {
    const hops = (n: number) => `/hop${n}`;
    const server = track(
      await startHostileHttp(({ path, res }) => {
        if (path === "/mcp") return redirect(res, 308, hops(1));
        const n = Number(path.slice(4));
        if (n >= 1 && n < 5) return redirect(res, 308, hops(n + 1));
        return false;
      }),
    );
    const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
    expect((client.connection.transport as StreamableHttpTransport).endpoint.pathname).toBe("/hop5");

    const loop = track(await startHostileHttp(({ res }) => redirect(res, 307, "/mcp")));
    const error = await connect({ url: loop.url }, { protocol: "legacy" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/more than 5 redirects .*redirect loop/);
    expect(loop.requests.length).toBe(6);
  });
});

describe("redirects that are refused", () => {
  it("a redirect to another origin: refused with both URLs and the reason, and no credentials reach it", async () => {
    const elsewhere = track(await startHostileHttp());
    const server = track(await startHostileHttp(({ res }) => redirect(res, 307, `${elsewhere.url}`)));
    const error = await connect({ url: server.url, auth: { token: "s3cret" }, headers: { "X-Api-Key": "k3y" } }, { protocol: "legacy" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportError);
    const message = (error as Error).message;
    expect(message).toContain(server.url);
    expect(message).toContain(elsewhere.url);
    expect(message).toMatch(/another origin; refused, because following it would send this connection's credentials/);
    expect(message).not.toContain("s3cret");
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("a redirect to a scheme other than HTTP is refused", async () => {
    const server = track(await startHostileHttp(({ res }) => redirect(res, 307, "file:///etc/passwd")));
    const error = await connect({ url: server.url }, { protocol: "legacy" }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/answered HTTP 307: a redirect to file: .*not HTTP; refused/);
  });

  it("a 302 on a POST is refused: it would turn the POST into a GET", async () => {
    const server = track(await startHostileHttp(({ path, res }) => (path === "/mcp" ? redirect(res, 302, "/mcp/") : false)));
    const error = await connect({ url: server.url }, { protocol: "legacy" }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/answered HTTP 302: a redirect to .*\/mcp\/ that would turn the POST into a GET; MCP needs 307 or 308/);
  });
});
