/** The loopback redirect listener: 127.0.0.1 only, one callback, a timeout, closed after. */
import { describe, expect, it } from "vitest";
import { AuthorizationError } from "../../src/auth/errors.js";
import { openLoopback } from "../../src/auth/loopback.js";

describe("openLoopback", () => {
  it("listens on 127.0.0.1, takes exactly one callback on its path, then closes", async () => {
    const listener = await openLoopback({ path: "/cb" });
    const redirect = new URL(listener.redirectUri);
    expect(redirect.hostname).toBe("127.0.0.1");
    expect(redirect.pathname).toBe("/cb");
    expect((await fetch(new URL("/other?code=x", redirect))).status).toBe(404);
    expect((await fetch(new URL("/cb", redirect))).status).toBe(404); // neither code nor error
    const page = await fetch(`${listener.redirectUri}?code=abc&state=s1`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("You can close this window");
    const callback = await listener.callback;
    expect(callback.searchParams.get("code")).toBe("abc");
    expect(callback.searchParams.get("state")).toBe("s1");
    await listener.close();
    await expect(fetch(`${listener.redirectUri}?code=again`)).rejects.toThrow();
  });

  it("an error callback is handed over too (the flow reports the server's error)", async () => {
    const listener = await openLoopback();
    expect((await fetch(`${listener.redirectUri}?error=access_denied&state=s`)).status).toBe(400);
    expect((await listener.callback).searchParams.get("error")).toBe("access_denied");
    await listener.close();
  });

  it("gives up after its timeout with an AuthorizationError, and frees the port", async () => {
    const listener = await openLoopback({ timeoutMs: 20 });
    const failure = await listener.callback.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect((failure as Error).message).toMatch(/No authorization callback reached http:\/\/127\.0\.0\.1:\d+\/callback/);
    await expect(fetch(`${listener.redirectUri}?code=late`)).rejects.toThrow();
  });

  it("closing before a callback rejects the wait instead of leaving it hanging", async () => {
    const listener = await openLoopback();
    await listener.close();
    await expect(listener.callback).rejects.toThrow(/closed before the authorization callback/);
  });
});
