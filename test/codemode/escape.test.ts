/**
 * Escape attempts: each stays inside the engine and the host is unchanged afterwards. The code sees
 * no `process`, `require` or `import`; the Function and AsyncFunction constructors reach the engine's
 * own global; prototype pollution stays in the run's heap; getters and Proxies come back as plain data;
 * there is no WebAssembly; loops, memory and recursion bombs end at the limits, and the next run works.
 */
import { describe, expect, it } from "vitest";
import { codeMode, type CodeMode } from "../../src/index.js";
import { codeBoards } from "./helpers.js";

const boards = codeBoards();

async function sandbox(options: Parameters<typeof codeMode>[1] = {}): Promise<CodeMode> {
  const { board } = await boards();
  return codeMode(board, { timeoutMs: 2_000, ...options });
}

function hostSnapshot() {
  return {
    objectProto: Object.getOwnPropertyNames(Object.prototype).sort(),
    arrayProto: Object.getOwnPropertyNames(Array.prototype).sort(),
    functionProto: Object.getOwnPropertyNames(Function.prototype).sort(),
    globals: Object.getOwnPropertyNames(globalThis).sort(),
  };
}

describe("escape attempts", () => {
  it("no process, require, module, import(), Deno/Bun, fetch, timers beyond setTimeout", async () => {
    const code = await sandbox();
    const out = await code.run(`
      return {
        process: typeof process, require: typeof require, module: typeof module, exports: typeof exports,
        fetch: typeof fetch, XMLHttpRequest: typeof XMLHttpRequest, WebSocket: typeof WebSocket,
        setInterval: typeof setInterval, setImmediate: typeof setImmediate, queueMicrotask: typeof queueMicrotask,
        Buffer: typeof Buffer, global: typeof global, std: typeof std, os: typeof os, WebAssembly: typeof WebAssembly,
        setTimeout: typeof setTimeout, tools: typeof tools, console: typeof console,
      };`);
    expect(out.error).toBeUndefined();
    const seen = out.value as Record<string, string>;
    for (const name of [
      "process",
      "require",
      "module",
      "exports",
      "fetch",
      "XMLHttpRequest",
      "WebSocket",
      "setInterval",
      "setImmediate",
      "Buffer",
      "global",
      "std",
      "os",
      "WebAssembly",
    ]) {
      expect(seen[name], name).toBe("undefined");
    }
    expect(seen).toMatchObject({ setTimeout: "function", tools: "object", console: "object" });
  });

  it("import() and static import fail inside the code", async () => {
    const code = await sandbox();
    const dynamic = await code.run(`const fs = await import("node:fs"); return typeof fs.readFileSync;`);
    expect(dynamic.error?.message).toMatch(/could not load module|not supported|module/i);
    const staticImport = await code.run(`import fs from "node:fs";\nreturn 1;`);
    expect(staticImport.error?.name).toBe("SyntaxError");
  });

  it("the Function and AsyncFunction constructors reach the engine's global, not the host's", async () => {
    const code = await sandbox();
    const out = await code.run(`
      const viaFunction = Function("return this")();
      const viaConstructor = (() => {}).constructor("return globalThis")();
      const AsyncFunction = (async () => {}).constructor;
      const viaAsync = await AsyncFunction("return globalThis")();
      const viaEval = (0, eval)("this");
      return [viaFunction, viaConstructor, viaAsync, viaEval].map((g) => [typeof g.process, typeof g.require, g === globalThis]);
    `);
    expect(out.error).toBeUndefined();
    expect(out.value).toEqual(Array(4).fill(["undefined", "undefined", true]));
  });

  it("__proto__ and prototype pollution stay in the run: the host and the next run are clean", async () => {
    const before = hostSnapshot();
    const code = await sandbox();
    const polluted = await code.run(`
      ({}).__proto__.polluted = "yes";
      Object.prototype.toString = () => "owned";
      Array.prototype.push = () => 0;
      JSON.parse = () => ({ hacked: true });
      const a = JSON.parse('{"__proto__": {"isAdmin": true}}');
      return { a: a, viaProto: ({}).polluted };
    `);
    expect(polluted.error).toBeUndefined();
    expect(polluted.value).toEqual({ a: { hacked: true }, viaProto: "yes" });
    expect(hostSnapshot()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    const next = await code.run(`return [({}).polluted, typeof Object.prototype.toString, [1].push(2)];`);
    expect(next.value).toEqual([null, "function", 2]);
    // A returned JSON text with "__proto__" as a key is an own property on the host, never a prototype.
    const keyed = await code.run(`return JSON.parse('{"__proto__": {"isAdmin": true}}');`);
    expect(Object.getPrototypeOf(keyed.value)).toBe(Object.prototype);
    expect((keyed.value as { isAdmin?: boolean }).isAdmin).toBeUndefined();
  });

  it("getters, Proxies, functions and class instances come back as plain JSON data, evaluated inside", async () => {
    const code = await sandbox();
    const out = await code.run(`
      let reads = 0;
      const tricky = {
        get secret() { reads++; return "from a getter"; },
        fn() { return 1; },
        proxy: new Proxy({}, { get: (t, k) => (k === "toJSON" ? () => "proxied" : undefined), ownKeys: () => [] }),
        date: new Date(0),
        big: undefined,
        nested: new Map([[1, 2]]),
      };
      return { value: tricky, reads: () => reads };
    `);
    expect(out.error).toBeUndefined();
    expect(out.value).toEqual({ value: { secret: "from a getter", proxy: "proxied", date: "1970-01-01T00:00:00.000Z", nested: {} } });
    const value = (out.value as { value: Record<string, unknown> }).value;
    for (const key of Object.keys(value)) expect(Object.getOwnPropertyDescriptor(value, key)).toHaveProperty("value");
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(typeof (value as { fn?: unknown }).fn).toBe("undefined");
  });

  it("a value that cannot be JSON (a BigInt, a cycle) is an error, not a live object", async () => {
    const code = await sandbox();
    expect((await code.run(`return 10n;`)).error?.message).toMatch(/not JSON data/);
    expect((await code.run(`const a = {}; a.self = a; return a;`)).error?.message).toMatch(/not JSON data/);
  });

  it("WebAssembly with imports: there is no WebAssembly to instantiate", async () => {
    const code = await sandbox();
    const out = await code.run(`
      const bytes = [0, 97, 115, 109, 1, 0, 0, 0];
      const module = await WebAssembly.instantiate(bytes, { env: { host: () => globalThis } });
      return typeof module;
    `);
    expect(out.error?.name).toBe("ReferenceError");
    expect(out.error?.message).toMatch(/WebAssembly/);
  });

  it("an infinite loop is interrupted at timeoutMs, and so is one inside a catch-all", async () => {
    const code = await sandbox({ timeoutMs: 300 });
    const began = performance.now();
    const loop = await code.run(`while (true) {}`);
    expect(loop.error?.name).toBe("TimeoutError");
    const stubborn = await code.run(`for (;;) { try { while (true) {} } catch (e) { } }`);
    expect(stubborn.error?.name).toBe("TimeoutError");
    expect(performance.now() - began).toBeLessThan(20_000);
    expect((await code.run(`return 1 + 1;`)).value).toBe(2);
  });

  it("memory bombs end at memoryLimitBytes (or, when the collector thrashes near the limit, at the deadline); the next run works", async () => {
    const code = await sandbox({ memoryLimitBytes: 8 * 1024 * 1024, timeoutMs: 10_000 });
    const doubling = await code.run(`let s = "ab";\nwhile (true) { s = s + s; s.charCodeAt(s.length - 1); }`);
    expect(doubling.error).toMatchObject({ message: expect.stringMatching(/out of memory/i), line: 2 });
    const many = await code.run(`const a = []; let i = 0;\nwhile (true) a.push(new Array(100).fill(i++));`);
    expect(many.error?.message).toMatch(/out of memory/i);
    const before = process.memoryUsage().rss;
    const strings = await code.run(`const a = []; let i = 0;\nwhile (true) a.push("x".repeat(1 << 16) + i++);`);
    expect(strings.error?.message).toMatch(/out of memory/i);
    // Typed arrays are not there: their buffers escaped the limit (2 GB under an 8 MiB limit, measured).
    const buffers = await code.run(`const a = [];\nwhile (true) a.push(new Uint8Array(1 << 20));`);
    expect(buffers.error).toMatchObject({ name: "ReferenceError", line: 2 });
    // The engine's heap is capped: the host process did not grow by anything like the bombs' appetite.
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
    expect((await code.run(`return [1, 2, 3].length;`)).value).toBe(3);
  });

  it("a recursion bomb ends at the engine's stack limit, catchable inside; the next run works", async () => {
    const code = await sandbox();
    const out = await code.run(`const f = (n) => f(n + 1) + 1;\nreturn f(0);`);
    expect(out.error?.message).toMatch(/stack overflow/i);
    const caught = await code.run(`const f = (n) => f(n + 1) + 1;\ntry { f(0); } catch (e) { return "caught " + e.message; }`);
    expect(caught.value).toBe("caught stack overflow");
    const viaJson = await code.run(`const g = () => JSON.stringify({ toJSON: g });\nreturn g();`);
    expect(viaJson.error?.message).toMatch(/stack overflow/i);
    expect((await code.run(`return "still fine";`)).value).toBe("still fine");
  });

  it("the largest stack limit: the run ends at a stack overflow (the engine's, or the worker's own), and the next run works", async () => {
    const code = await sandbox({ maxStackBytes: 1024 * 1024 });
    const out = await code.run(`const f = (n) => f(n + 1) + 1;\nreturn f(0);`);
    expect(out.error).toMatchObject({ name: expect.stringMatching(/^(RangeError|InternalError)$/), message: expect.stringMatching(/stack overflow/) });
    expect((await code.run(`return [1, 2].map((x) => x * 2);`)).value).toEqual([2, 4]);
  });

  it("many timers are bounded by the run's deadline, and none outlives the run", async () => {
    const code = await sandbox({ timeoutMs: 300 });
    const out = await code.run(`for (let i = 0; i < 1000; i++) setTimeout(() => {}, 60_000);\nawait new Promise((r) => setTimeout(r, 60_000));\nreturn 1;`);
    expect(out.error?.name).toBe("TimeoutError");
    const timed = await code.run(`const t = Date.now(); await new Promise((r) => setTimeout(r, 20)); return Date.now() - t >= 15;`);
    expect(timed.value).toBe(true);
  });
});
