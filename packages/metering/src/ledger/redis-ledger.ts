/**
 * The ledger on Redis, beside the limits: a served request's usage is added in the limits' own
 * script (the kernel's counter increments, `CounterIncrement` in `@keyward/core`), so metering costs
 * a request no store round trip of its own, and is added exactly when the request was admitted.
 *
 * Where it lives (`prefix` must be the Redis store's, `keyward:` by default):
 * | key | holds |
 * |---|---|
 * | `<prefix>counter:{<owner>}:meter:<windowStart>` | one owner's totals in one window, a field per meter (`<owner>` is `user:<id>` or `organization:<id>`, the owner's limits' hash tag) |
 * | `<prefix>{meter-export}:w:<windowStart>` | what each sink acknowledged of each owner's meter in that window, and the send pending |
 * | `<prefix>{meter-export}:adjustments` | usage a sink could not take (a list of JSON) |
 * | `<prefix>{meter-export}:lease:<name>` | the export lease |
 *
 * Every key expires `retentionMs` after its window closed (default 70 days: Stripe takes events up
 * to 35 days old, and `usage reconcile` reads a whole past month). The exporter finds closed windows
 * by `SCAN` over the counters (on a cluster, every master): a run reads every retained window's keys,
 * about two per owner per window.
 *
 * Durability is Redis's: run it with persistence (AOF, `appendfsync everysec`), as the limits'
 * quotas and credits are. A Redis that loses its data loses the usage not yet exported (and, being
 * counted again from zero, a window may be exported short). There is no PostgreSQL copy yet.
 */
import type { CounterIncrement } from "@keyward/core";
import { withDeadline } from "@keyward/core/toolkit";
import { checkAdditions } from "./check-additions.js";
import {
  acknowledgeScript,
  addScript,
  leaseScript,
  prepareScript,
  releaseScript,
  setAsideScript,
} from "./redis-ledger-scripts.js";
import type {
  Adjustment,
  DueWindow,
  LedgerAddition,
  LedgerTotal,
  LedgerWindow,
  UsageLedger,
} from "./usage-ledger.js";

/** The commands the ledger sends: an ioredis `Redis` or `Cluster`. */
export interface RedisLedgerClient {
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  scan(
    cursor: string,
    match: "MATCH",
    pattern: string,
    count: "COUNT",
    size: number,
  ): Promise<[string, string[]]>;
  hgetall(key: string): Promise<Record<string, string>>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  /** On a cluster: its masters, each scanned for the counters. */
  nodes?(role: "master"): RedisLedgerClient[];
}

export interface RedisLedgerOptions {
  client: RedisLedgerClient;
  /** The Redis store's prefix (default `keyward:`): the ledger's counters are the store's. */
  prefix?: string;
  /** How long a window is kept once closed, ms (default 70 days). */
  retentionMs?: number;
  /** Every call's deadline, ms (default 2000). */
  timeoutMs?: number;
}

/** A ledger whose served usage can ride the limits' script. */
export interface RidingLedger extends UsageLedger {
  /**
   * What a served request adds, as counter increments of its owner's limits (`<owner>` is the
   * limits' owner, `user:<id>`), for a store that applies them (`appliesIncrements`).
   */
  incrementsFor(windowStart: number, credits: number): CounterIncrement[];
}

const day = 86_400_000;

export function redisLedger(options: RedisLedgerOptions): RidingLedger {
  const { client } = options;
  if (typeof client?.eval !== "function" || typeof client.scan !== "function") {
    throw new TypeError("redisLedger: `client` must be an ioredis Redis or Cluster");
  }
  const prefix = options.prefix ?? "keyward:";
  if (/[{}*?[\]\\]/.test(prefix)) {
    throw new TypeError("redisLedger: `prefix` must have no braces or glob characters");
  }
  const retentionMs = options.retentionMs ?? 70 * day;
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (!(retentionMs > 0) || !(timeoutMs > 0)) {
    throw new TypeError("redisLedger: `retentionMs` and `timeoutMs` must be > 0");
  }
  const within = <T>(call: Promise<T>, what: string) =>
    withDeadline(
      call,
      timeoutMs,
      () => new Error(`redisLedger: no answer from Redis within ${timeoutMs} ms (${what})`),
    );
  const counterName = (windowStart: number) => `meter:${windowStart}`;
  const counterKey = (owner: string, windowStart: number) =>
    `${prefix}counter:{${owner}}:${counterName(windowStart)}`;
  const counterPattern = new RegExp(
    `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}counter:\\{(user|organization):(.*)\\}:meter:(\\d+)$`,
  );
  const exportKey = (windowStart: number) => `${prefix}{meter-export}:w:${windowStart}`;
  const adjustmentsKey = `${prefix}{meter-export}:adjustments`;
  const leaseKey = (name: string) => `${prefix}{meter-export}:lease:${name}`;
  const stateField = (sink: string, window: LedgerWindow) =>
    `${sink}\n${window.ownerId}\n${window.meter}`;
  // A window's keys are kept until `retentionMs` after it closed; the window's length is not known
  // to every call, so a day covers any window up to one.
  const expiryOf = (windowStart: number) => windowStart + day + retentionMs;

  /** Keys of every counter, with their owner id and window (all masters on a cluster). */
  const scanCounters = async () => {
    const found: { key: string; ownerId: string; windowStart: number }[] = [];
    const nodes = typeof client.nodes === "function" ? client.nodes("master") : [client];
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await within(
          node.scan(cursor, "MATCH", `${prefix}counter:{*}:meter:*`, "COUNT", 1000),
          "SCAN",
        );
        cursor = next;
        for (const key of keys) {
          const match = counterPattern.exec(key);
          if (match) found.push({ key, ownerId: match[2]!, windowStart: Number(match[3]) });
        }
      } while (cursor !== "0");
    }
    return found;
  };

  /** Totals per owner id, meter and window among `counters` (an id owning as user and as organization sums). */
  const readTotals = async (counters: Awaited<ReturnType<typeof scanCounters>>) => {
    const totals = new Map<string, LedgerWindow & { total: number }>();
    const read = await Promise.all(
      counters.map(async (counter) => ({
        ...counter,
        fields: await within(client.hgetall(counter.key), "HGETALL"),
      })),
    );
    for (const { ownerId, windowStart, fields } of read) {
      for (const [meter, value] of Object.entries(fields)) {
        const id = `${ownerId}\u0000${meter}\u0000${windowStart}`;
        const total = (totals.get(id)?.total ?? 0) + Number(value);
        totals.set(id, { ownerId, meter, windowStart, total });
      }
    }
    return [...totals.values()];
  };

  /** Runs a script on keys that share the `{meter-export}` tag. */
  const run = (script: string, keys: string[], args: (string | number)[], what: string) =>
    within(client.eval(script, keys.length, ...keys, ...args), what);

  /** The distinct export keys of `windows`, and each window's index among them (1-based). */
  const exportKeysOf = (windows: readonly LedgerWindow[]) => {
    const keys: string[] = [];
    const index = new Map<number, number>();
    for (const { windowStart } of windows) {
      if (!index.has(windowStart)) {
        keys.push(exportKey(windowStart));
        index.set(windowStart, keys.length);
      }
    }
    return { keys, index };
  };

  return {
    async windowOf(ownerId, windowStart) {
      // The owner's two counters (as user and as organization) of that window: lookups, no scan.
      const counters = (["user", "organization"] as const).map((type) => ({
        key: counterKey(`${type}:${ownerId}`, windowStart),
        ownerId,
        windowStart,
      }));
      return (await readTotals(counters)).map(({ meter, total }) => ({ ownerId, meter, total }));
    },
    incrementsFor(windowStart, credits) {
      const counter = counterName(windowStart);
      const expireAt = expiryOf(windowStart);
      const requests: CounterIncrement = { counter, field: "requests", by: 1, expireAt };
      if (credits <= 0) return [requests];
      return [requests, { counter, field: "credits", by: credits, expireAt }];
    },

    async add(additions: readonly LedgerAddition[]) {
      checkAdditions(additions);
      if (additions.length === 0) return;
      const keys: string[] = [];
      const args: (string | number)[] = [];
      for (const addition of additions) {
        const owner = `${addition.ownerType ?? "user"}:${addition.ownerId}`;
        const key = counterKey(owner, addition.windowStart);
        let index = keys.indexOf(key);
        if (index < 0) index = keys.push(key) - 1;
        args.push(index + 1, addition.meter, addition.amount, expiryOf(addition.windowStart));
      }
      await run(addScript, keys, args, "add");
    },

    async due({ sink, meters, startedBefore, limit }) {
      const closed = (await scanCounters()).filter((c) => c.windowStart < startedBefore);
      const totals = (await readTotals(closed)).filter((row) => meters.includes(row.meter));
      const windows = [...new Set(totals.map((row) => row.windowStart))];
      const states = new Map(
        await Promise.all(
          windows.map(
            async (windowStart) =>
              [
                windowStart,
                await within(client.hgetall(exportKey(windowStart)), "HGETALL"),
              ] as const,
          ),
        ),
      );
      const due: DueWindow[] = [];
      for (const row of totals) {
        const raw = states.get(row.windowStart)?.[stateField(sink, row)];
        const [acknowledged = 0, from, value, preparedAt] = (raw ?? "0").split(" ").map(Number);
        const pending =
          from === undefined ? undefined : { from, value: value!, preparedAt: preparedAt! };
        if (acknowledged >= row.total && pending === undefined) continue;
        due.push({ ...row, acknowledged, ...(pending ? { pending } : {}) });
      }
      due.sort((a, b) => a.windowStart - b.windowStart);
      return due.slice(0, limit);
    },

    async prepare(sink, sends, now) {
      if (sends.length === 0) return [];
      const { keys, index } = exportKeysOf(sends);
      const args: (string | number)[] = [now];
      for (const send of sends) {
        const where = index.get(send.windowStart)!;
        args.push(where, stateField(sink, send), send.from, send.value, expiryOf(send.windowStart));
      }
      const answers = (await run(prepareScript, keys, args, "prepare")) as string[];
      return sends.flatMap((send, position) => {
        const answer = answers[position];
        if (!answer) return [];
        const [from, value, preparedAt] = answer.split(" ").map(Number) as [number, number, number];
        const { ownerId, meter, windowStart } = send;
        return [{ ownerId, meter, windowStart, from, value, preparedAt }];
      });
    },

    async acknowledge(sink, sends) {
      if (sends.length === 0) return;
      const { keys, index } = exportKeysOf(sends);
      const args = sends.flatMap((send) => [
        index.get(send.windowStart)!,
        stateField(sink, send),
        send.from,
        expiryOf(send.windowStart),
      ]);
      await run(acknowledgeScript, keys, args, "acknowledge");
    },

    async setAside(sink, window, now) {
      const { ownerId, meter, windowStart, value, reason, detail } = window;
      const adjustment: Adjustment = {
        sink,
        ownerId,
        meter,
        windowStart,
        value,
        reason,
        detail,
        at: now,
      };
      await run(
        setAsideScript,
        [exportKey(windowStart), adjustmentsKey],
        [stateField(sink, window), value, JSON.stringify(adjustment), expiryOf(windowStart)],
        "setAside",
      );
    },

    async adjustments(sink) {
      const raw = await within(client.lrange(adjustmentsKey, 0, -1), "LRANGE");
      const all = raw.map((text) => JSON.parse(text) as Adjustment);
      return all.filter((adjustment) => sink === undefined || adjustment.sink === sink);
    },

    async lease(name, holder, ttlMs, now) {
      return (await run(leaseScript, [leaseKey(name)], [holder, ttlMs, now], "lease")) === 1;
    },

    async releaseLease(name, holder) {
      await run(releaseScript, [leaseKey(name)], [holder], "releaseLease");
    },

    async totals(from, to) {
      const inRange = (await scanCounters()).filter(
        (counter) => counter.windowStart >= from && counter.windowStart < to,
      );
      const sums = new Map<string, LedgerTotal>();
      for (const row of await readTotals(inRange)) {
        const id = `${row.ownerId}\u0000${row.meter}`;
        const total = (sums.get(id)?.total ?? 0) + row.total;
        sums.set(id, { ownerId: row.ownerId, meter: row.meter, total });
      }
      return [...sums.values()];
    },
  };
}

/** Whether `ledger` can ride the limits' script. */
export function isRidingLedger(ledger: UsageLedger): ledger is RidingLedger {
  return typeof (ledger as Partial<RidingLedger>).incrementsFor === "function";
}
