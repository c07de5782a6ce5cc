/**
 * The demo's `GET /metrics` as a real Prometheus server sees it (Debian's `prometheus`, started
 * here with a one-second scrape interval). A scripted client sends known numbers of admitted
 * requests, 401s, 403s, 429s from each limit layer (the key's own, the owner's shared allowance,
 * the quota) and requests that fail (500) while Redis is unreachable; PromQL over Prometheus's HTTP
 * API returns exactly those counts. Redis sits behind a TCP proxy that the test pauses: the
 * scraped `keyward_store_breaker` goes to 1 during the outage and back to 0 after it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localRedis } from "../../../packages/redis/test/support/redis-url.js";
import { codeBlocks } from "../../../scripts/docs/code-blocks.js";
import { mintToken } from "../src/token.js";
import { type RunningExample, startExample } from "./run-example.js";
import { type PausableProxy, pausableProxy } from "./support/pausable-proxy.js";
import {
  prometheusBinary,
  type RunningPrometheus,
  requirePrometheus,
  startPrometheus,
} from "./support/prometheus-server.js";

const run = requirePrometheus("the demo's Prometheus scrape test");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Owners of this run only: the shared Redis keeps other runs' owner allowances and quotas.
const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const metricsToken = `metrics-${runId}-${Math.random().toString(36).slice(2)}`;

describe.skipIf(!run)("the demo's /metrics, scraped by Prometheus", () => {
  let proxy: PausableProxy;
  let demo: RunningExample;
  let prometheus: RunningPrometheus;
  /** What the client got back, by outcome (`ok` or the error code) and principal kind. */
  const sent = new Map<string, number>();
  const count = (key: string) => sent.set(key, (sent.get(key) ?? 0) + 1);
  /** The 429s the client got, by the layer the answer names. */
  const refusedBy = new Map<string, number>();

  beforeAll(async () => {
    proxy = await pausableProxy({ host: localRedis.host, port: localRedis.port });
    demo = await startExample("fetch", {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}/${localRedis.db}`,
      // The key's own limit: 3 a minute on free; the owner's shared 4 a minute on pro; a quota
      // of 2 a day on enterprise.
      KEYWARD_TIER_LIMITS: "free=3,pro=100,enterprise=100",
      KEYWARD_OWNER_LIMITS: "pro=4",
      KEYWARD_QUOTAS: "enterprise=2/day",
      // Behind a bearer token, which Prometheus sends as docs/observability.md configures it.
      KEYWARD_METRICS_TOKEN: metricsToken,
    });
    prometheus = await startPrometheus(new URL(demo.origin).host, { token: metricsToken });
  }, 90_000);

  afterAll(async () => {
    await prometheus?.stop();
    await demo?.stop();
    await proxy?.close();
  });

  /** A request with a bearer token, tallied by what came back. */
  const call = async (
    method: string,
    path: string,
    token: string | undefined,
    kind = "key",
  ): Promise<number> => {
    const response = await fetch(`${demo.origin}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(method === "PUT" || method === "POST" ? { "content-type": "application/json" } : {}),
      },
      ...(method === "PUT" ? { body: JSON.stringify({ bio: "hello" }) } : {}),
    });
    const body = (await response.json()) as { code?: string; detail?: string };
    count(response.ok ? `ok|${kind}` : `${body.code}|`);
    const layer =
      body.code === "quota_exceeded"
        ? "quota"
        : body.code === "rate_limited"
          ? body.detail?.includes("owner")
            ? "owner"
            : "key"
          : undefined;
    if (layer) refusedBy.set(layer, (refusedBy.get(layer) ?? 0) + 1);
    return response.status;
  };

  /**
   * Creates that a loaded machine answered with a 500 (a Redis call past the demo's 100 ms
   * deadline): each was one verification of the session, counted as `ok|user` when the session
   * passed and the write failed, or as `internal|` when the session check itself failed. The client
   * cannot tell which, so these are reconciled as a sum (`verificationsExpected`).
   */
  let ambiguousCreates = 0;

  const createKey = async (sub: string, tier: "free" | "pro" | "enterprise") => {
    const session = await mintToken({ sub: `${sub}-${runId}`, tier });
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(`${demo.origin}/api/v1/api-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "scripted", scopes: ["profile:read"], tier }),
      });
      if (response.status === 500 && attempt < 4) {
        ambiguousCreates++;
        await response.body?.cancel();
        continue;
      }
      expect(response.status).toBe(201);
      count("ok|user"); // the session was verified too
      return ((await response.json()) as { key: string }).key;
    }
  };

  /** `keyward_verifications_total` as the demo's own /metrics says it now, by outcome and kind. */
  const demoVerifications = async () => {
    const text = await (
      await fetch(`${demo.origin}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      })
    ).text();
    const counted: Record<string, number> = {};
    for (const line of text.split("\n")) {
      if (!line.startsWith("keyward_verifications_total{")) continue;
      const labels = line.slice(line.indexOf("{") + 1, line.lastIndexOf("}"));
      const outcome = /keyward_outcome="([^"]*)"/.exec(labels)?.[1] ?? "";
      const kind = /keyward_principal_kind="([^"]*)"/.exec(labels)?.[1] ?? "";
      const key = `${outcome}|${kind}`;
      counted[key] = (counted[key] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
    }
    return counted;
  };

  /**
   * What Prometheus must show: the client's tally exactly; or, after creates answered 500, the
   * demo's own count, which must agree with the tally on every outcome but the two such a create
   * can be, and on those two together, counting each such create once.
   */
  const verificationsExpected = async (): Promise<Record<string, number>> => {
    const tally = Object.fromEntries(sent);
    if (ambiguousCreates === 0) return tally;
    const counted = await demoVerifications();
    const either = new Set(["ok|user", "internal|"]);
    for (const key of new Set([...Object.keys(tally), ...Object.keys(counted)])) {
      if (!either.has(key)) expect(counted[key] ?? 0, key).toBe(tally[key] ?? 0);
    }
    const sum = (of: Record<string, number>) => (of["ok|user"] ?? 0) + (of["internal|"] ?? 0);
    expect(sum(counted)).toBe(sum(tally) + ambiguousCreates);
    return counted;
  };

  /** Waits until PromQL answers `expected` (series → value), then asserts it exactly. */
  const settlesAt = async (
    promql: string,
    labels: (metric: Record<string, string>) => string,
    expected: Record<string, number>,
  ) => {
    let seen: Record<string, number> = {};
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      seen = Object.fromEntries(
        (await prometheus.query(promql)).map(({ metric, value }) => [labels(metric), value]),
      );
      if (JSON.stringify(sorted(seen)) === JSON.stringify(sorted(expected))) break;
      await sleep(500);
    }
    expect(sorted(seen), promql).toEqual(sorted(expected));
  };

  const byOutcome = (metric: Record<string, string>) =>
    `${metric.keyward_outcome}|${metric.keyward_principal_kind ?? ""}`;
  const verificationsQuery =
    "sum by (keyward_outcome, keyward_principal_kind) (keyward_verifications_total)";

  it("counts exactly the admitted, 401, 403, 429-by-layer and failed requests; the breaker goes 1 and back to 0", async () => {
    const started = performance.now();
    const profile = "/api/v1/profiles/alice";
    // Warm up: the first calls load the Lua scripts into Redis and open the connection's pipeline,
    // which on a loaded machine can pass the demo's 100 ms store deadline. Counted like the rest.
    const warm = await createKey("warm", "free");
    for (let i = 0; i < 2; i++) await call("GET", profile, warm);
    const warmed = Object.fromEntries(sent);
    const alice1 = await createKey("alice", "free");
    const alice2 = await createKey("alice", "free");
    const bob1 = await createKey("bob", "pro");
    const bob2 = await createKey("bob", "pro");
    const carol = await createKey("carol", "enterprise");

    // The key's own limit (3 a minute): 3 admitted, 2 refused by the key layer.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await call("GET", profile, alice1));
    // A key without profile:write on PUT: 403, twice (each spends the key's rate limit).
    for (let i = 0; i < 2; i++) statuses.push(await call("PUT", profile, alice2));
    // The owner's shared 4 a minute: bob's first key 3, his second 1, then the owner layer refuses.
    for (let i = 0; i < 3; i++) statuses.push(await call("GET", profile, bob1));
    for (let i = 0; i < 3; i++) statuses.push(await call("GET", profile, bob2));
    // The quota, 2 a day: 2 admitted, 2 refused.
    for (let i = 0; i < 4; i++) statuses.push(await call("GET", profile, carol));
    // 401s: malformed keys (no lookup) and no credentials at all.
    for (let i = 0; i < 3; i++) statuses.push(await call("GET", profile, "sk_live_nonsense"));
    statuses.push(await call("GET", profile, undefined));
    // On a machine so loaded that a Redis call passes the demo's 100 ms deadline, a request is a
    // 500 (and may still have been counted by Redis): then the plan's statuses shift, and the
    // client's own tally is still what Prometheus must show.
    if (!statuses.includes(500)) {
      expect(statuses).toEqual([
        200, 200, 200, 429, 429, 403, 403, 200, 200, 200, 200, 429, 429, 200, 200, 429, 429, 401,
        401, 401, 401,
      ]);
      expect(Object.fromEntries(sent)).toEqual({
        "ok|user": 5 + (warmed["ok|user"] ?? 0),
        "ok|key": 9 + (warmed["ok|key"] ?? 0),
        ...(warmed["internal|"] ? { "internal|": warmed["internal|"] } : {}),
        "rate_limited|": 4,
        "insufficient_scope|": 2,
        "quota_exceeded|": 2,
        "invalid_api_key|": 3,
        "missing_credentials|": 1,
      });
      expect(Object.fromEntries(refusedBy)).toEqual({ key: 2, owner: 2, quota: 2 });
    }
    for (const outcome of ["ok|key", "insufficient_scope|", "invalid_api_key|"]) {
      expect(sent.get(outcome), outcome).toBeGreaterThan(0);
    }
    for (const layer of ["key", "owner", "quota"]) {
      expect(refusedBy.get(layer), layer).toBeGreaterThan(0);
    }
    await settlesAt(verificationsQuery, byOutcome, await verificationsExpected());
    await settlesAt(
      "sum by (keyward_layer) (keyward_limit_refusals_total)",
      (metric) => metric.keyward_layer!,
      Object.fromEntries(refusedBy),
    );
    // Redis stalls: the demo fails closed (500), and after three failures its breaker opens.
    await settlesAt('keyward_store_breaker{keyward_store="redis"}', () => "redis", { redis: 0 });
    proxy.pause();
    const failed: number[] = [];
    for (let i = 0; i < 4; i++) failed.push(await call("GET", profile, bob1));
    expect(failed).toEqual([500, 500, 500, 500]);
    await settlesAt('keyward_store_breaker{keyward_store="redis"}', () => "redis", { redis: 1 });
    // Redis is back: once the retry interval has passed, a request probes it and closes the breaker.
    proxy.resume();
    await sleep(700);
    let status = 0;
    for (let attempt = 0; attempt < 10 && status !== 200; attempt++) {
      status = await call("GET", profile, alice2);
      if (status !== 200) await sleep(300);
    }
    expect(status).toBe(200);
    await settlesAt('keyward_store_breaker{keyward_store="redis"}', () => "redis", { redis: 0 });
    // Every request of the run, the failed ones included, counted exactly once.
    expect(sent.get("internal|")).toBeGreaterThanOrEqual(4);
    await settlesAt(verificationsQuery, byOutcome, await verificationsExpected());
    // docs/observability.md's p99 latency query answers a number of seconds (a minute of scrapes):
    // no verification of the run took longer than the run (milliseconds would be 1000 times over).
    const [p99] = await prometheus.query(
      "histogram_quantile(0.99, sum by (le) (rate(keyward_verify_duration_seconds_bucket[1m])))",
    );
    expect(p99?.value).toBeGreaterThan(0);
    expect(p99?.value).toBeLessThanOrEqual((performance.now() - started) / 1000);
  }, 120_000);

  it("answers every PromQL query of docs/observability.md, and promtool accepts its alert rules", async () => {
    const blocks = codeBlocks("docs/observability.md");
    const promql = blocks.find((block) => block.language === "promql")!.code;
    // Queries are separated by comment lines; a query may span lines.
    const queries = promql
      .split(/^#.*$/m)
      .map((query) => query.trim())
      .filter((query) => query !== "");
    expect(queries.length).toBeGreaterThanOrEqual(8);
    for (const query of queries) await prometheus.query(query); // throws on a query it refuses
    // The alert rules (the other YAML block is the scrape configuration).
    const rules = blocks.find(
      (block) => block.language === "yaml" && block.code.includes("groups:"),
    )!.code;
    const directory = mkdtempSync(path.join(tmpdir(), "keyward-rules-"));
    try {
      const file = path.join(directory, "rules.yml");
      writeFileSync(file, rules);
      const checked = spawnSync(path.join(path.dirname(prometheusBinary), "promtool"), [
        "check",
        "rules",
        file,
      ]);
      expect(checked.status, `${checked.stdout}${checked.stderr}`).toBe(0);
      expect(String(checked.stdout)).toMatch(/SUCCESS: 5 rules found/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

function sorted(record: Record<string, number>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
