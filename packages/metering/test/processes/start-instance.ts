/** Starts metered-instance.ts in a child process, with a typed request/reply over IPC. */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { databaseUrl } from "../support/postgres.js";
import type { InstanceCommand } from "./metered-instance.js";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const instanceFile = fileURLToPath(new URL("./metered-instance.ts", import.meta.url));

interface Reply {
  id: number;
  type: "result" | "error" | "hung";
  value?: unknown;
  message?: string;
}

export function startInstance(
  name: string,
  env: {
    schema: string;
    redisPrefix: string;
    stripePort?: number;
    openMeterUrl?: string;
    /** `before:<n>` | `after:<n>`: the n-th ledger write hangs there (metered-instance.ts). */
    hangLedger?: string;
  },
) {
  const output: string[] = [];
  const child: ChildProcess = fork(instanceFile, [], {
    cwd: packageDir,
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: {
      ...process.env,
      KEYWARD_TEST_DATABASE_URL: databaseUrl,
      KEYWARD_TEST_SCHEMA: env.schema,
      KEYWARD_TEST_REDIS_PREFIX: env.redisPrefix,
      KEYWARD_TEST_INSTANCE: name,
      KEYWARD_TEST_STRIPE_PORT: String(env.stripePort ?? ""),
      KEYWARD_TEST_OPENMETER_URL: env.openMeterUrl ?? "",
      KEYWARD_TEST_HANG_LEDGER: env.hangLedger ?? "",
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const waiting = new Map<number, (reply: Reply) => void>();
  child.on("message", (reply: Reply) => waiting.get(reply.id)?.(reply));
  /** Once a ledger write hung (`hangLedger`): where, and how many served requests were answered. */
  const hung = new Promise<{ when: string; answered: number }>((resolve) => {
    child.on("message", (reply: Reply) => {
      if (reply.type === "hung") resolve(reply.value as { when: string; answered: number });
    });
  });
  let nextId = 1;
  const ready = new Promise<void>((resolve, reject) => {
    waiting.set(0, () => resolve());
    child.once("exit", (code) =>
      reject(new Error(`${name} exited (${code}) before it was ready:\n${output.join("")}`)),
    );
  });
  function request<T>(command: InstanceCommand): Promise<T> {
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
  /** SIGKILL: nothing recorded after this instant. */
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
    if (child.exitCode === null && child.signalCode === null) await kill();
  }
  return { name, child, ready, request, kill, stop, output, hung };
}

export type Instance = ReturnType<typeof startInstance>;
