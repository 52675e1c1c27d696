/**
 * A Redis for one test file: `REDIS_URL` when set, else a private `redis-server` on a unix socket in a
 * temporary directory (no TCP port, no disk), stopped by `stop()`. `redisAvailable` is false when
 * neither exists; fleet tests then skip with a line saying how to install Redis.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer, type AddressInfo } from "node:net";

export const redisAvailable = process.env.REDIS_URL !== undefined || spawnSync("redis-server", ["--version"]).status === 0;
export const INSTALL_REDIS = "fleet tests need Redis: apt-get install redis-server (or set REDIS_URL)";

export interface TestRedis {
  /** redis://host:port, or unix:/path/redis.sock for the private server. */
  url: string;
  /** The server process when this helper started one. */
  process: ChildProcess | undefined;
  stop(): Promise<void>;
  /** kill -9 the server (only one this helper started), and start it again on the same socket. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

/** `tcp`: a private server on a 127.0.0.1 port with this password instead of a unix socket (never REDIS_URL). */
export async function startRedis(tcp?: { password: string }): Promise<TestRedis> {
  if (tcp !== undefined) return startTcpRedis(tcp.password);
  if (process.env.REDIS_URL !== undefined) {
    return { url: process.env.REDIS_URL, process: undefined, stop: async () => {}, kill: notOwned, restart: notOwned };
  }
  const dir = mkdtempSync(join(tmpdir(), "mcpsb-redis-"));
  const socket = join(dir, "redis.sock");
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn("redis-server", ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    const deadline = Date.now() + 10_000;
    while (!existsSync(socket)) {
      if (Date.now() > deadline) throw new Error("redis-server did not create its socket within 10 s");
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once("exit", r));
    running.kill(signal);
    await exited;
    rmSync(socket, { force: true });
  };
  await launch();
  const redis: TestRedis = {
    url: `unix:${socket}`,
    get process() {
      return child;
    },
    stop: async () => {
      await end("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => end("SIGKILL"),
    restart: launch,
  };
  return redis;
}

async function notOwned(): Promise<void> {
  throw new Error("REDIS_URL points at a Redis this test does not own: it cannot kill it");
}

async function startTcpRedis(password: string): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--requirepass", password, "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (Date.now() > deadline) throw new Error("redis-server did not listen within 10 s");
    await new Promise((r) => setTimeout(r, 20));
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  return { url: `redis://:${password}@127.0.0.1:${port}`, process: child, stop, kill: stop, restart: notOwned };
}

/** A port free on 127.0.0.1 now (for a server that must be told its port, like redis-server or haproxy). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
