/**
 * A test instance in a child process: a TypeScript file run through tsx on the workspace's sources,
 * driven by typed requests over IPC. The child sends `{ id: 0 }` once ready and answers each
 * `{ id, command }` with `{ id, type: "result", value }` or `{ id, type: "error", message }`; its
 * output is kept, shown with a failure. Used by the tests of several processes (the webhooks'
 * here, metering's), each with its own instance file and commands, which include `{ type: "close" }`.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

interface Reply {
  id: number;
  type: "result" | "error";
  value?: unknown;
  message?: string;
}

export interface ForkedInstanceOptions {
  /** Shown in errors, and the `KEYWARD_TEST_INSTANCE` the child reads. */
  name: string;
  /** The instance's file: `new URL("./instance.ts", import.meta.url)`. */
  file: URL;
  /** The package directory the child runs in (where it resolves tsx and its imports). */
  cwd: URL;
  /** Set in the child's environment, over this process's. */
  env: Record<string, string>;
}

export function forkInstance<Command extends { type: string }>(options: ForkedInstanceOptions) {
  const { name } = options;
  const output: string[] = [];
  const child: ChildProcess = fork(fileURLToPath(options.file), [], {
    cwd: fileURLToPath(options.cwd),
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: { ...process.env, ...options.env, KEYWARD_TEST_INSTANCE: name },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const waiting = new Map<number, (reply: Reply) => void>();
  child.on("message", (reply: Reply) => waiting.get(reply.id)?.(reply));
  let nextId = 1;
  const ready = new Promise<void>((resolve, reject) => {
    waiting.set(0, () => resolve());
    child.once("exit", (code) =>
      reject(new Error(`${name} exited (${code}) before it was ready:\n${output.join("")}`)),
    );
  });
  function request<T>(command: Command | { type: "close" }): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, (reply) => {
        waiting.delete(id);
        if (reply.type === "error")
          reject(new Error(`${name}: ${reply.message}\n${output.join("")}`));
        else resolve(reply.value as T);
      });
      child.send({ id, command });
    });
  }
  /** SIGKILL: no close, no flush, nothing recorded after this instant. */
  const kill = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  /** Asks the instance to close (5 s at most), gives it 50 ms to exit, then kills it. */
  async function stop() {
    if (child.exitCode === null && child.signalCode === null && child.connected) {
      const closed = request({ type: "close" }).catch(() => {});
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (child.exitCode === null && child.signalCode === null) await kill();
  }
  return { name, child, ready, request, kill, stop, output };
}
