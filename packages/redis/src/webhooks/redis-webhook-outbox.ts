/**
 * The webhook outbox on Redis (see `lua/webhooks.ts`). The undispatched mark is written by the
 * script that writes the event (`withEvents`), so an event never exists without it; dispatch,
 * claims, outcomes and redelivery are one script each, hence atomic among instances.
 */
import type { StoredEvent, StoredWebhookDelivery, WebhookOutbox } from "@keyward/core";
import type { CallGuard } from "@keyward/core/toolkit";
import type { LuaScript } from "../client/lua-script.js";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import {
  claimScript,
  dispatchScript,
  listDeliveriesScript,
  redeliverScript,
  settleScript,
} from "../lua/webhooks.js";

/** Members read per listing call when an endpoint filter leaves some out. */
const listBatch = 200;

const time = (value: string | undefined) =>
  value === undefined || value === "" ? null : Number(value);

function toDelivery(json: string): StoredWebhookDelivery {
  const hash = JSON.parse(json) as Record<string, string>;
  return {
    id: hash.id!,
    eventId: hash.eventId!,
    endpointId: hash.endpointId!,
    occurredAt: Number(hash.occurredAt),
    status: hash.status as StoredWebhookDelivery["status"],
    attempts: Number(hash.attempts),
    nextAttemptAt: hash.status === "pending" ? time(hash.nextAttemptAt) : null,
    lastAttemptAt: time(hash.lastAttemptAt),
    lastResponseStatus: time(hash.lastResponseStatus),
    lastError: hash.lastError ?? null,
    deliveredAt: time(hash.deliveredAt),
  };
}

/** `<time>:<id>` with the time zero-padded as event members are. */
function listMember(occurredAt: number, id: string): string {
  return `${String(occurredAt).padStart(16, "0")}:${id}`;
}

export function redisWebhookOutbox(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
): WebhookOutbox {
  const { webhooks } = names;
  const run = (script: LuaScript, keys: string[], args: string[]) =>
    guard.run(() => connection.run(script, keys, args), script.name);

  return {
    async dispatch(routes, limit, now) {
      return Number(
        await run(
          dispatchScript,
          [webhooks.undispatched, `${webhooks.listPrefix}all`, `${webhooks.listPrefix}pending`],
          [
            String(limit),
            String(now),
            // cjson reads an empty array as an object: routes are never empty here, and types
            // are left out rather than sent empty.
            JSON.stringify(
              routes.map((route) => ({
                endpointId: route.endpointId,
                ...(route.types ? { types: route.types } : {}),
              })),
            ),
            names.eventRecordPrefix,
            webhooks.deliveryPrefix,
            webhooks.duePrefix,
          ],
        ),
      );
    },

    async claim({ now, leaseMs, limit, lease, endpointIds }) {
      if (endpointIds.length === 0) return [];
      const flat = (await run(
        claimScript,
        endpointIds.map((endpointId) => webhooks.duePrefix + endpointId),
        [
          String(now),
          String(Math.ceil(leaseMs)),
          String(limit),
          lease,
          webhooks.deliveryPrefix,
          names.eventRecordPrefix,
        ],
      )) as string[];
      const claimed = [];
      for (let i = 0; i < flat.length; i += 2) {
        claimed.push({
          delivery: toDelivery(flat[i]!),
          event: JSON.parse(flat[i + 1]!) as StoredEvent,
        });
      }
      return claimed;
    },

    async settle(id, lease, outcome) {
      const recorded = await run(
        settleScript,
        [webhooks.deliveryPrefix + id],
        [
          id,
          lease,
          outcome.status,
          outcome.status === "pending" ? String(outcome.nextAttemptAt ?? outcome.at) : "",
          outcome.responseStatus === null ? "" : String(outcome.responseStatus),
          outcome.status === "delivered" ? "" : outcome.error,
          String(outcome.at),
          webhooks.duePrefix,
          webhooks.listPrefix,
        ],
      );
      return Number(recorded) === 1;
    },

    async list(query) {
      const listing = `${webhooks.listPrefix}${query.status ?? "all"}`;
      const found: StoredWebhookDelivery[] = [];
      let bound = query.after ? `(${listMember(query.after.occurredAt, query.after.id)}` : "+";
      for (;;) {
        const size = query.endpointId === undefined ? query.limit : listBatch;
        const flat = (await run(
          listDeliveriesScript,
          [listing],
          [bound, String(size), webhooks.deliveryPrefix],
        )) as string[];
        for (let i = 0; i < flat.length; i += 2) {
          const delivery = toDelivery(flat[i + 1]!);
          if (query.endpointId === undefined || delivery.endpointId === query.endpointId) {
            found.push(delivery);
            if (found.length === query.limit) return found;
          }
        }
        if (flat.length < size * 2) return found;
        bound = `(${flat[flat.length - 2]}`;
      }
    },

    async redeliver(id, now) {
      const json = await run(
        redeliverScript,
        [webhooks.deliveryPrefix + id],
        [id, String(now), webhooks.duePrefix, webhooks.listPrefix],
      );
      return typeof json === "string" ? toDelivery(json) : undefined;
    },
  };
}
