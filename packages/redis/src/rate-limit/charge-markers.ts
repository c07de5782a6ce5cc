/**
 * A layered call's charge markers, and the voids of calls their callers gave up on.
 *
 * A script call that times out may still run: Redis was stalled, not gone, and runs what was
 * queued once it resumes. Its requests were answered 500 by then, so whatever it charged to quotas
 * and credits would be spent on requests nobody was served. Each call therefore carries two keys of
 * its own (`consume-layers.ts`): it writes what it charged to "paid", and changes nothing if "void"
 * is set. When its caller gives up, `voidCall` sets "void" and undoes what "paid" lists, atomically
 * (`lua/void-charges.ts`): exact whether the call ran before, runs after, or never arrives, and on
 * every instance (all of it is in Redis).
 *
 * A void that cannot reach Redis is retried in the background, with backoff, until it lands or the
 * markers would have expired; `close` stops the retries. Only quotas and credits are undone: the
 * rate layers count attempts.
 */

import { luaScript } from "../client/lua-script.js";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { voidChargesScript } from "../lua/void-charges.js";

/**
 * How long a call's "paid" marker is kept: every call that charges a quota or credits writes one,
 * so it lives only as long as a void may take to follow (a void queued behind its call on the same
 * connection lands within milliseconds; one retried after a lost connection, within this). About
 * 150 bytes a call: at 1,000 charging calls a second, some 10 MB of Redis. A void that lands later
 * finds no marker, and that call's charges stand.
 */
export const chargeMarkerTtlMs = 60 * 1000;

/**
 * How long a "void" marker is kept: a call stalled longer than this before Redis runs it would
 * charge after all. Only calls given up on write one.
 */
export const voidMarkerTtlMs = 60 * 60 * 1000;

export interface ChargeMarkers {
  paid: string;
  void: string;
}

/** Fresh markers for one call, in `owner`'s slot (on a cluster a call's keys share one). */
export function chargeMarkersFor(names: KeyNames, owner: string): ChargeMarkers {
  const id = crypto.randomUUID();
  return { paid: names.layer(owner, `paid:${id}`), void: names.layer(owner, `void:${id}`) };
}

export interface ChargeVoids {
  /** The call with these markers was given up on: undo its charges (in the background). */
  voidCall(markers: ChargeMarkers): Promise<void>;
  /** Voids not landed yet. */
  readonly pending: number;
  close(): void;
}

export function chargeVoids(
  connection: RedisConnection,
  options: { onError(error: unknown): void; retryMs?: number } = { onError: () => {} },
): ChargeVoids {
  const retryMs = options.retryMs ?? 200;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let pending = 0;
  let closed = false;

  const attempt = async (markers: ChargeMarkers): Promise<void> => {
    for (;;) {
      // The state keys the marker names, declared to the script (a cluster requires it).
      const paid = (await connection.run(readMarkerScript, [markers.paid], [])) as string | null;
      const keys = paid
        ? [...new Set(paid.split("\n").map((line) => line.slice(0, line.indexOf("\t"))))]
        : [];
      const undone = await connection.run(
        voidChargesScript,
        [markers.paid, markers.void, ...keys],
        [String(voidMarkerTtlMs)],
      );
      if (undone !== -1) return;
    }
  };

  return {
    voidCall(markers) {
      pending++;
      const started = Date.now();
      return new Promise<void>((resolve) => {
        const tryOnce = (delay: number) => {
          attempt(markers).then(
            () => {
              pending--;
              resolve();
            },
            (error: unknown) => {
              options.onError(error);
              // Past the paid marker's life a void can undo nothing; it still stops a late call
              // until then, so it is retried as long as that.
              if (closed || Date.now() - started > voidMarkerTtlMs) {
                pending--;
                resolve();
                return;
              }
              const timer = setTimeout(() => {
                timers.delete(timer);
                tryOnce(Math.min(delay * 2, 30_000));
              }, delay);
              timer.unref?.();
              timers.add(timer);
            },
          );
        };
        tryOnce(retryMs);
      });
    },
    get pending() {
      return pending;
    },
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** Every data operation is a script (`redis-connection.ts`): reading the marker is one too. */
const readMarkerScript = luaScript("read-charge-marker", "return redis.call('GET', KEYS[1])");
