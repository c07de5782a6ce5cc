/**
 * `key.expiring`: every instance looks, on a timer, for keys that expire within the lead time and
 * appends one event per key and expiry. The once-key names both (`key.expiring:<id>:<expiresAt>`)
 * and is held until the expiry, so of all instances that find the key only one writes it, and a
 * key whose expiry moved is announced again.
 */
import { isoTime } from "../../api/key-record.js";
import type { Clock } from "../../clock.js";
import type { StoredEvent } from "../../event-model/event.js";
import { systemActor } from "../../event-model/event-actor.js";
import { generateEventId } from "../../event-model/event-id.js";
import type { RandomSource } from "../../random.js";
import type { AppendedEvent } from "../../storage/event-log.js";
import type { ExpiringKeysQuery, KeyStore, StoredKey } from "../../storage/key-store.js";

/** Keys read per store call: small enough for one short query or script. */
const pageSize = 200;

export interface ExpiryScan {
  /** Looks once now; resolves with how many `key.expiring` events this call wrote. */
  scan(): Promise<number>;
  /** Starts the timer if it is not running, with a first look right away. */
  start(): void;
  /** Stops the timer; resolves once a look still running has finished (its failure is reported). */
  close(): Promise<void>;
}

/** The once-key of a key's `key.expiring`: one per key and expiry. */
export function expiringOnceKey(keyId: string, expiresAt: number): string {
  return `key.expiring:${keyId}:${expiresAt}`;
}

export function expiryScan(options: {
  keys: KeyStore;
  append(entries: readonly AppendedEvent[]): Promise<StoredEvent[]>;
  clock: Clock;
  random: RandomSource;
  leadTimeMs: number;
  intervalMs: number | false;
  onError(error: unknown): void;
}): ExpiryScan {
  const { keys, clock, random, leadTimeMs, intervalMs } = options;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<number> | undefined;
  let closed = false;

  const expiring = (key: StoredKey & { expiresAt: number }): AppendedEvent => ({
    event: {
      id: generateEventId(random),
      type: "key.expiring",
      occurredAt: clock.now(),
      owner: { type: key.ownerType, id: key.ownerId },
      keyId: key.id,
      actor: systemActor,
      data: { expiresAt: isoTime(key.expiresAt) },
    },
    once: { key: expiringOnceKey(key.id, key.expiresAt), until: key.expiresAt },
  });

  const scanOnce = async (): Promise<number> => {
    const listExpiring = keys.listExpiring;
    if (!listExpiring) return 0;
    const now = clock.now();
    // A key exactly the lead time away is within it.
    const query: ExpiringKeysQuery = { from: now, to: now + leadTimeMs + 1, limit: pageSize };
    let written = 0;
    for (;;) {
      const page = (await listExpiring.call(keys, query)) as (StoredKey & { expiresAt: number })[];
      if (page.length > 0) written += (await options.append(page.map(expiring))).length;
      if (page.length < pageSize) return written;
      const last = page[page.length - 1]!;
      query.after = { expiresAt: last.expiresAt, id: last.id };
    }
  };

  // A look still running when the next is due is not doubled.
  const scan = () => {
    running ??= scanOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    scan,
    start() {
      if (timer !== undefined || closed || intervalMs === false || !keys.listExpiring) return;
      const look = () => {
        scan().catch(options.onError);
      };
      timer = setInterval(look, intervalMs);
      // Never keeps a process alive.
      (timer as { unref?: () => void }).unref?.();
      look();
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      // The store is closed next: a look still reading it would fail on a closed connection.
      await running?.catch(() => {});
    },
  };
}
