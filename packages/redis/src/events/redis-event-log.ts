/**
 * The events the Redis key store writes with its changes (see `lua/events.ts`), read back newest
 * first and pruned in batches.
 */
import type { EventLog, StoredEvent, WebhookOutbox } from "@keyward/core";
import type { CallGuard } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { appendEventsScript, pruneEventsScript, readEventsScript } from "../lua/events.js";
import { redisWebhookOutbox } from "../webhooks/redis-webhook-outbox.js";

/** Members read per script call when filters leave some out; prune batches are the same size. */
const batch = 500;

/**
 * `<time>:<id>`, the time zero-padded to 16 digits so that members sort by lex as by time (up to
 * the year 318,857; times before 1970 are refused).
 */
export function eventMember(occurredAt: number, id: string): string {
  return `${timeText(occurredAt)}:${id}`;
}

function timeText(time: number): string {
  if (!Number.isSafeInteger(time) || time < 0) {
    throw new TypeError(`event times must be whole milliseconds after 1970, got ${time}`);
  }
  return String(time).padStart(16, "0");
}

/** The keys and arguments `withEvents` scripts take after their own. */
export function eventWrites(
  names: KeyNames,
  events: readonly StoredEvent[],
): { keys: string[]; args: string[] } {
  const keys: string[] = [];
  const args: string[] = [];
  for (const event of events) {
    keys.push(
      names.eventRecord(event.id),
      names.allEvents,
      names.ownerEvents(event.owner),
      names.keyEvents(event.keyId),
      names.webhooks.undispatched,
    );
    args.push(JSON.stringify(event), eventMember(event.occurredAt, event.id));
  }
  args.push(String(events.length));
  return { keys, args };
}

export function redisEventLog(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
): EventLog & { outbox: WebhookOutbox } {
  const run = (script: typeof readEventsScript, keys: string[], args: string[]) =>
    guard.run(() => connection.run(script, keys, args), script.name);

  return {
    outbox: redisWebhookOutbox(connection, names, guard),

    async append(entries, now) {
      if (entries.length === 0) return [];
      const keys: string[] = [];
      const args: string[] = [];
      for (const { event, once } of entries) {
        keys.push(
          names.eventRecord(event.id),
          names.allEvents,
          names.ownerEvents(event.owner),
          names.keyEvents(event.keyId),
          once ? names.eventOnce(once.key) : names.allEvents,
          names.webhooks.undispatched,
        );
        if (once && !Number.isSafeInteger(once.until)) {
          throw new TypeError(`once.until must be whole milliseconds, got ${once.until}`);
        }
        args.push(
          JSON.stringify(event),
          eventMember(event.occurredAt, event.id),
          once ? String(once.until) : "",
        );
      }
      args.push(String(timeText(now)));
      const written = (await run(appendEventsScript, keys, args)) as number[];
      return written.map((index) => entries[index - 1]!.event);
    },

    async list(query) {
      const set =
        query.keyId === undefined ? names.ownerEvents(query.owner) : names.keyEvents(query.keyId);
      const found: StoredEvent[] = [];
      let bound = query.after ? `(${eventMember(query.after.occurredAt, query.after.id)}` : "+";
      // Without a type filter the first read is the page; with one, reads go on until it is full.
      for (;;) {
        const size = query.types === undefined ? query.limit : batch;
        const flat = (await run(
          readEventsScript,
          [set],
          [bound, String(size), names.eventRecordPrefix],
        )) as string[];
        for (let i = 0; i < flat.length; i += 2) {
          const event = JSON.parse(flat[i + 1]!) as StoredEvent;
          const owned = event.owner.type === query.owner.type && event.owner.id === query.owner.id;
          if (owned && (query.types === undefined || query.types.includes(event.type))) {
            found.push(event);
            if (found.length === query.limit) return found;
          }
        }
        if (flat.length < size * 2) return found;
        bound = `(${flat[flat.length - 2]}`;
      }
    },

    async prune(before) {
      let pruned = 0;
      for (;;) {
        const deleted = Number(
          await run(
            pruneEventsScript,
            [names.allEvents, names.webhooks.undispatched],
            [
              `(${timeText(before)}:`,
              String(batch),
              names.eventRecordPrefix,
              names.webhooks.deliveryPrefix,
              names.webhooks.listPrefix,
              names.webhooks.duePrefix,
            ],
          ),
        );
        pruned += deleted;
        if (deleted < batch) return pruned;
      }
    },
  };
}
