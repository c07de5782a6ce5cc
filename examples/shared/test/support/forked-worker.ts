/**
 * A test's worker process, forked with tsx and the source condition, and its replies over IPC in
 * the order they came: `next()` resolves with the next one, whether it has arrived yet or not.
 */
import { type ChildProcess, fork } from "node:child_process";

export interface ForkedWorker {
  child: ChildProcess;
  next(): Promise<unknown>;
}

export function forkWorker(file: string, cwd: string, env: NodeJS.ProcessEnv): ForkedWorker {
  const child = fork(file, [], {
    cwd,
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const replies: unknown[] = [];
  const waiters: ((reply: unknown) => void)[] = [];
  child.on("message", (reply) => {
    const waiter = waiters.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  });
  const next = () =>
    new Promise<unknown>((resolve) => {
      if (replies.length > 0) resolve(replies.shift());
      else waiters.push(resolve);
    });
  return { child, next };
}
