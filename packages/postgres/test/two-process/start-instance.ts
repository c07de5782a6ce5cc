/**
 * Starting and stopping the child processes of the two-process tests: one Keyward instance each
 * (instance.ts), driven by typed requests over IPC.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serverUrl } from "../support/databases.js";
import type { Command, Reply } from "./instance.js";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const instanceFile = fileURLToPath(new URL("./instance.ts", import.meta.url));

/** A child process running one instance, and a typed request/reply over IPC. */
export function startInstance(name: string, schema: string, env: Record<string, string> = {}) {
  const output: string[] = [];
  const child: ChildProcess = fork(instanceFile, [], {
    cwd: packageDir,
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: {
      ...process.env,
      KEYWARD_TEST_DATABASE_URL: serverUrl,
      KEYWARD_TEST_SCHEMA: schema,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const waiting = new Map<number, { onReply: (reply: Reply) => void }>();
  child.on("message", (reply: Reply) => waiting.get(reply.id)?.onReply(reply));
  let nextId = 1;

  const ready = new Promise<void>((resolve, reject) => {
    waiting.set(0, { onReply: () => resolve() });
    child.once("exit", (code) =>
      reject(new Error(`${name} exited (${code}) before it was ready:\n${output.join("")}`)),
    );
  });

  /** Sends a command; `onWatching` hears the intermediate reply of a watch. */
  function request<T>(command: Command, onWatching?: (cacheHit: boolean) => void): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, {
        onReply(reply) {
          if (reply.type === "watching") return onWatching?.(reply.cacheHit);
          waiting.delete(id);
          if (reply.type === "error")
            reject(new Error(`${name}: ${reply.message}\n${output.join("")}`));
          else resolve(reply.value as T);
        },
      });
      child.send({ id, command });
    });
  }
  return { name, child, ready, request };
}
export type Instance = ReturnType<typeof startInstance>;

/** Asks the instance to close, and kills it if it does not within 5 s. */
export async function stopInstance(instance: Instance): Promise<void> {
  if (instance.child.exitCode === null && instance.child.connected) {
    const closed = instance.request({ type: "close" }).catch(() => {});
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  if (instance.child.exitCode === null) instance.child.kill();
}
