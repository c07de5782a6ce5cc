/**
 * The Worker each test isolate runs (`miniflare.ts` starts several of it on one namespace):
 * - `POST /run` `{ prefix, now, tiers, keys, requests, inFlight }`: a Keyward of its own on
 *   `cloudflareStore`, on a clock set to `now`, sends `requests` verifications, `inFlight` at a time,
 *   spread over `keys`, and answers how many each got admitted and why the others were refused;
 * - `POST /verify` `{ prefix, secret, scopes? }`: one verification by this isolate's long-lived
 *   Keyward for `prefix` (its key cache stays warm between requests, as a busy Worker's does),
 *   answered with the key's name when admitted, the error's code and detail when not;
 * - a Cron Trigger (`scheduled`): Keyward's periodic work by `runBackgroundWork`, on the store under
 *   `cronPrefix`, as docs/cloudflare.md shows it; `GET /cron/last` answers what its last run did.
 */
import { createKeyward, type Keyward, type KeywardConfig, manualClock } from "@keyward/core";
import { budgets } from "@keyward/core/budgets";
import {
  type BackgroundRun,
  cloudflareStore,
  type ObjectNamespace,
  runBackgroundWork,
} from "../../src/index.js";
import { cronPrefix, type ScheduleEnv, scheduleKeyward } from "./test-schedule.js";

/** What the last Cron Trigger's run did (`GET /cron/last`), in this isolate. */
let lastCronRun: BackgroundRun | null = null;

export interface RunJob {
  prefix: string;
  now: number;
  tiers: KeywardConfig["tiers"];
  keys: { secret: string; cost: number; scopes?: string[] }[];
  requests: number;
  inFlight: number;
  limitObjects?: "owner" | "key";
}

export interface RunResult {
  admitted: number[];
  refusals: Record<string, number>;
}

/**
 * `POST /reserve`: `requests` reservations of `cost`, `inFlight` at a time, spread over `keys`,
 * each admitted one settled with `spend` (or left to its TTL with `settle: false`), on a Keyward
 * with `budgets()` whose holds are the store's `holds` object.
 */
export interface ReserveJob {
  prefix: string;
  limitObjects: "owner" | "key";
  tiers: KeywardConfig["tiers"];
  budget?: {
    perKey?: { limit: number; period: "day" };
    perOwner?: { limit: number; period: "day" };
  };
  keys: string[];
  requests: number;
  inFlight: number;
  cost: number;
  spend: number;
  settle: boolean;
  holdTtl?: string;
}

export interface ReserveResult {
  admitted: number[];
  spent: number;
  refusals: Record<string, number>;
}

const scopes = { "profile:read": "Read", "profile:write": "Write" };
const verifiers = new Map<string, Keyward>();

const keywardFor = (
  namespace: ObjectNamespace,
  prefix: string,
  tiers: KeywardConfig["tiers"],
  now?: number,
  limitObjects?: "owner" | "key",
) =>
  createKeyward({
    store: cloudflareStore({ namespace, prefix, ...(limitObjects ? { limitObjects } : {}) }),
    scopes,
    tiers,
    ...(now === undefined ? {} : { clock: manualClock(now) }),
    jwt: false,
    logger: false,
  });

async function run(namespace: ObjectNamespace, job: RunJob): Promise<RunResult> {
  const keyward = keywardFor(namespace, job.prefix, job.tiers, job.now, job.limitObjects);
  const admitted = job.keys.map(() => 0);
  const refusals: Record<string, number> = {};
  let sent = 0;
  const lane = async () => {
    while (sent < job.requests) {
      const index = sent % job.keys.length;
      sent += 1;
      const { secret, cost, scopes: required } = job.keys[index]!;
      const result = await keyward.verify(`Bearer ${secret}`, {
        route: "GET /p",
        cost,
        ...(required ? { scopes: required } : {}),
      });
      if (result.ok) admitted[index]! += 1;
      else refusals[String(result.error.detail)] = (refusals[String(result.error.detail)] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: job.inFlight }, lane));
  await keyward.close();
  return { admitted, refusals };
}

async function reserve(namespace: ObjectNamespace, job: ReserveJob): Promise<ReserveResult> {
  const store = cloudflareStore({ namespace, prefix: job.prefix, limitObjects: job.limitObjects });
  const keyward = createKeyward({
    store,
    scopes,
    tiers: job.tiers,
    jwt: false,
    logger: false,
    features: [
      budgets({
        ...job.budget,
        holds: store.holds,
        sweepInterval: false,
        ...(job.holdTtl ? { holdTtl: job.holdTtl } : {}),
      }),
    ],
  });
  const admitted = job.keys.map(() => 0);
  const refusals: Record<string, number> = {};
  let spent = 0;
  let sent = 0;
  const lane = async () => {
    while (sent < job.requests) {
      const index = sent % job.keys.length;
      sent += 1;
      const result = await keyward.budgets.reserve(`Bearer ${job.keys[index]}`, {
        route: "POST /c",
        cost: job.cost,
      });
      if (!result.ok) {
        const detail = String(result.error.detail);
        refusals[detail] = (refusals[detail] ?? 0) + 1;
        continue;
      }
      admitted[index]! += 1;
      if (!job.settle) continue;
      const outcome = await result.hold.settle(job.spend);
      if (!outcome.done) throw new Error("a hold settled once was gone");
      spent += outcome.spent;
    }
  };
  await Promise.all(Array.from({ length: job.inFlight }, lane));
  await keyward.close();
  return { admitted, spent, refusals };
}

/**
 * `POST /object/<method>` with the object's name in `x-keyward-object`: the call handed on to that
 * object through this Worker's binding, as it came. What the tests' store in Node calls through
 * (`forwardingNamespace` in `miniflare.ts`): one HTTP request per call.
 */
function forward(request: Request, namespace: ObjectNamespace): Promise<Response> {
  const url = new URL(request.url);
  const name = request.headers.get("x-keyward-object") ?? "";
  const stub = namespace.get(namespace.idFromName(name) as never);
  const method = url.pathname.slice("/object/".length);
  return stub.fetch(`https://keyward.object/${method}${url.search}`, {
    method: "POST",
    body: request.body as never,
  }) as unknown as Promise<Response>;
}

export default {
  async scheduled(
    _controller: unknown,
    env: ScheduleEnv,
    ctx: { waitUntil(promise: Promise<unknown>): void },
  ): Promise<void> {
    const keyward = scheduleKeyward(env, cronPrefix);
    ctx.waitUntil(
      runBackgroundWork(keyward)
        .then((run) => {
          lastCronRun = run;
        })
        .finally(() => keyward.close()),
    );
  },
  async fetch(request: Request, env: { KEYWARD: ObjectNamespace }): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/cron/last") return Response.json(lastCronRun);
    if (path.startsWith("/object/")) return forward(request, env.KEYWARD);
    if (path === "/run")
      return Response.json(await run(env.KEYWARD, (await request.json()) as RunJob));
    if (path === "/reserve")
      return Response.json(await reserve(env.KEYWARD, (await request.json()) as ReserveJob));
    if (path === "/verify") {
      const { prefix, secret, scopes } = (await request.json()) as {
        prefix: string;
        secret: string;
        scopes?: string[];
      };
      let keyward = verifiers.get(prefix);
      if (keyward === undefined) {
        keyward = keywardFor(env.KEYWARD, prefix, {
          free: { rateLimit: { limit: 1_000, window: "1m" } },
        });
        verifiers.set(prefix, keyward);
      }
      const result = await keyward.verify(`Bearer ${secret}`, {
        route: "GET /p",
        ...(scopes ? { scopes } : {}),
      });
      if (!result.ok) {
        return Response.json({ ok: false, detail: result.error.detail, code: result.error.code });
      }
      return Response.json(
        result.principal.kind === "key" ? { ok: true, name: result.principal.name } : { ok: true },
      );
    }
    return new Response("not found", { status: 404 });
  },
};
