/** Starts webhook-instance.ts in a child process, with a typed request/reply over IPC. */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serverUrl } from "../support/databases.js";
import type { WebhookCommand } from "./webhook-instance.js";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const instanceFile = fileURLToPath(new URL("./webhook-instance.ts", import.meta.url));

interface Reply {
  id: number;
  type: "result" | "error";
  value?: unknown;
  message?: string;
}

export function startWebhookInstance(
  name: string,
  env: {
    schema: string;
    redisPrefix: string;
    keysOn: "postgres" | "redis";
    webhooks: object;
    hangAfterSend?: boolean;
  },
) {
  const output: string[] = [];
  const child: ChildProcess = fork(instanceFile, [], {
    cwd: packageDir,
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: {
      ...process.env,
      KEYWARD_TEST_DATABASE_URL: serverUrl,
      KEYWARD_TEST_SCHEMA: env.schema,
      KEYWARD_TEST_REDIS_PREFIX: env.redisPrefix,
      KEYWARD_TEST_KEYS: env.keysOn,
      KEYWARD_TEST_INSTANCE: name,
      KEYWARD_TEST_WEBHOOKS: JSON.stringify(env.webhooks),
      KEYWARD_TEST_HANG_AFTER_SEND: env.hangAfterSend ? "1" : "0",
    },
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
  function request<T>(command: WebhookCommand): Promise<T> {
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

export type WebhookInstance = ReturnType<typeof startWebhookInstance>;
