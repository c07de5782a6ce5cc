/**
 * Private redis-server processes for tests that must stop, restart or cluster a server: each on a
 * random free loopback port, in a temporary directory, killed when the test is done (and when the
 * test process exits, whatever happens).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** Whether `port` is free on 127.0.0.1. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (+10000) is free too. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
  throw new Error("No free port pair found");
}

export interface RedisServer {
  readonly port: number;
  /** SIGKILL: the server vanishes without closing anything gracefully. */
  kill(): Promise<void>;
  /** Starts it again on the same port (the data is gone: nothing is persisted). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(
  extraArgs: string[] = [],
  port?: number,
): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "keyward-redis-"));
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(chosen),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        ...extraArgs,
      ],
      { stdio: "ignore" },
    );
    live.add(child);
    child.once("exit", () => live.delete(child!));
    await waitForPing(chosen);
  };

  const kill = async () => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null) return;
    const exited = new Promise((resolve) => current.once("exit", resolve));
    current.kill("SIGKILL");
    await exited;
  };

  await start();
  return {
    port: chosen,
    kill,
    restart: start,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function redisCli(...args: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", args, { timeout: 30_000 });
  return stdout;
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      if ((await redisCli("-h", "127.0.0.1", "-p", String(port), "ping")).trim() === "PONG") return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not start`);
}

export interface RedisCluster {
  readonly nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

/** Three masters, no replicas, every slot assigned: `redis-cli --cluster create`. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      servers.push(
        await startRedisServer(["--cluster-enabled", "yes", "--cluster-node-timeout", "5000"]),
      );
    }
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
    await redisCli("--cluster", "create", ...addresses, "--cluster-replicas", "0", "--cluster-yes");
    const deadline = Date.now() + 20_000;
    for (const server of servers) {
      for (;;) {
        const info = await redisCli("-p", String(server.port), "cluster", "info");
        if (info.includes("cluster_state:ok")) break;
        if (Date.now() > deadline) throw new Error("The test cluster did not become ready");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    for (const server of servers) await server.stop();
    throw error;
  }
  return {
    nodes: servers.map((server) => ({ host: "127.0.0.1", port: server.port })),
    async stop() {
      for (const server of servers) await server.stop();
    },
  };
}
