/**
 * A real Prometheus server (Debian's `prometheus` package, `/usr/bin/prometheus`), started by a
 * test with a configuration of its own, a temporary data directory and a free port, scraping one
 * target every second; queried through its HTTP API. In CI (`CI=true`) a missing binary fails the
 * run (`.ci/run` installs it); elsewhere the suite is skipped with a notice.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export const prometheusBinary = process.env.KEYWARD_TEST_PROMETHEUS ?? "/usr/bin/prometheus";

/** Whether to run; throws in CI when Prometheus is missing, so a skipped suite never passes. */
export function requirePrometheus(suite: string): boolean {
  if (spawnSync(prometheusBinary, ["--version"]).status === 0) return true;
  const message = `${prometheusBinary} does not run`;
  if (process.env.CI === "true" || process.env.CI === "1") {
    throw new Error(`${message}; CI needs it for ${suite} (apt-get install -y prometheus)`);
  }
  console.warn(
    `\n⚠ SKIPPED ${suite}: ${message}. Install it with: apt-get install -y prometheus\n`,
  );
  return false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PrometheusSample {
  metric: Record<string, string>;
  value: number;
}

export interface RunningPrometheus {
  url: string;
  /** An instant PromQL query, each series with its labels and value. */
  query(promql: string): Promise<PrometheusSample[]>;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * @param target `host:port` of the `/metrics` to scrape
 * @param options.token the demo's `KEYWARD_METRICS_TOKEN`: sent as docs/observability.md shows,
 *   with the scrape configuration's `authorization` and the token in a file
 */
export async function startPrometheus(
  target: string,
  options: { token?: string } = {},
): Promise<RunningPrometheus> {
  const directory = mkdtempSync(path.join(tmpdir(), "keyward-prometheus-"));
  const config = path.join(directory, "prometheus.yml");
  const tokenFile = path.join(directory, "metrics-token");
  if (options.token !== undefined) writeFileSync(tokenFile, options.token);
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 800ms",
      "scrape_configs:",
      "  - job_name: keyward-demo",
      ...(options.token === undefined
        ? []
        : ["    authorization:", "      type: Bearer", `      credentials_file: ${tokenFile}`]),
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    prometheusBinary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(directory, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // A sample stays "current" for 5 minutes by default; a short lookback makes a query read the
      // latest scrape rather than a stale one.
      "--query.lookback-delta=3s",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let logs = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    logs += chunk;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    logs += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([
        new Promise((resolve) => child.once("exit", resolve)),
        new Promise((resolve) => setTimeout(resolve, 5_000)),
      ]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    rmSync(directory, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}:\n${logs}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 30 s:\n${logs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== "success") throw new Error(`PromQL ${promql}: ${body.error}`);
      return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
    },
    logs: () => logs,
    stop,
  };
}
