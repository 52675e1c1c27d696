/** Starts a benchmark server in its own process (so client and server each get a core) and reads its port. */
import { spawn, type ChildProcess } from "node:child_process";

export interface ServerProcess {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export async function startServerProcess(script: string): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.stdin!.end();
        setTimeout(() => child.kill("SIGKILL"), 2000).unref();
      }),
  };
}
