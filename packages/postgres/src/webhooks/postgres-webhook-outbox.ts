/**
 * The webhook outbox on PostgreSQL. The mark that an event still has to be
 * dispatched is a column of the event's row (`webhook_pending`, true by default), so it commits
 * with the event, in whatever transaction wrote it. Dispatch and claims take rows with
 * `FOR UPDATE SKIP LOCKED`: several instances share the work without waiting on each other, and
 * no row is taken twice. Nothing scans by a cursor over ids or times, so an event whose
 * transaction commits late is dispatched on a later call, like any other.
 */
import type { ClaimedWebhookDelivery, StoredWebhookDelivery, WebhookOutbox } from "@keyward/core";
import { type PostgresClient, queryRows } from "../client.js";
import { type EventRow, toStoredEvent } from "../events/event-row.js";
import { epochMsParam, fromEpochMs, toEpochMs } from "../schema/epoch-ms.js";
import type { Naming } from "../schema/naming.js";

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  occurred_at: number | string;
  status: string;
  attempts: number | string;
  next_attempt_at: number | string | null;
  last_attempt_at: number | string | null;
  last_response_status: number | string | null;
  last_error: string | null;
  delivered_at: number | string | null;
}

const deliveryColumns = (table: string) =>
  [
    `${table}.id`,
    `${table}.event_id`,
    `${table}.endpoint_id`,
    `${toEpochMs(`${table}.occurred_at`)} AS occurred_at`,
    `${table}.status`,
    `${table}.attempts`,
    `${toEpochMs(`${table}.next_attempt_at`)} AS next_attempt_at`,
    `${toEpochMs(`${table}.last_attempt_at`)} AS last_attempt_at`,
    `${table}.last_response_status`,
    `${table}.last_error`,
    `${toEpochMs(`${table}.delivered_at`)} AS delivered_at`,
  ].join(", ");

const time = (value: number | string | null) => (value === null ? null : Number(value));

function toDelivery(row: DeliveryRow): StoredWebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    occurredAt: Number(row.occurred_at),
    status: row.status as StoredWebhookDelivery["status"],
    attempts: Number(row.attempts),
    nextAttemptAt: time(row.next_attempt_at),
    lastAttemptAt: time(row.last_attempt_at),
    lastResponseStatus: row.last_response_status === null ? null : Number(row.last_response_status),
    lastError: row.last_error,
    deliveredAt: time(row.delivered_at),
  };
}

export function postgresWebhookOutbox(client: PostgresClient, { tables }: Naming): WebhookOutbox {
  const events = tables.events;
  const deliveries = tables.webhookDeliveries;
  const sql = {
    // One statement: take marked events, insert one delivery per matching route, clear the marks.
    // The CTEs share one snapshot, and the taken rows stay locked until the statement commits.
    dispatch: `WITH taken AS (
        SELECT id, type, occurred_at FROM ${events} WHERE webhook_pending
        ORDER BY occurred_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
      ), inserted AS (
        INSERT INTO ${deliveries} (id, event_id, endpoint_id, occurred_at, status, attempts, next_attempt_at)
        SELECT 'whd_' || substr(t.id, 5) || '_' || r.endpoint_id, t.id, r.endpoint_id, t.occurred_at,
          'pending', 0, ${fromEpochMs("$3")}
        FROM taken t JOIN jsonb_to_recordset($1::text::jsonb) AS r(endpoint_id text, types jsonb)
          ON r.types IS NULL OR t.type IN (SELECT jsonb_array_elements_text(r.types))
        ON CONFLICT (id) DO NOTHING
      ), marked AS (
        UPDATE ${events} e SET webhook_pending = false FROM taken WHERE e.id = taken.id RETURNING 1
      )
      SELECT count(*)::float8 AS taken FROM marked`,
    claim: `WITH due AS (
        SELECT id FROM ${deliveries}
        WHERE status = 'pending' AND next_attempt_at <= ${fromEpochMs("$1")}
          AND endpoint_id IN (SELECT jsonb_array_elements_text($5::text::jsonb))
        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE ${deliveries} d SET attempts = d.attempts + 1,
          next_attempt_at = ${fromEpochMs("$1")} + $2::bigint * interval '1 millisecond',
          last_attempt_at = ${fromEpochMs("$1")}, lease = $4
        FROM due WHERE d.id = due.id
        RETURNING d.*
      )
      SELECT ${deliveryColumns("claimed")},
        e.type AS e_type, ${toEpochMs("e.occurred_at")} AS e_occurred_at, e.owner_type AS e_owner_type,
        e.owner_id AS e_owner_id, e.key_id AS e_key_id, e.actor::text AS e_actor, e.data::text AS e_data
      FROM claimed JOIN ${events} e ON e.id = claimed.event_id`,
    settle: `UPDATE ${deliveries} SET status = $3, lease = NULL,
        next_attempt_at = ${fromEpochMs("$4")}, last_response_status = $5, last_error = $6,
        delivered_at = ${fromEpochMs("$7")}
      WHERE id = $1 AND lease = $2 AND status = 'pending' RETURNING 1`,
    list: `SELECT ${deliveryColumns(deliveries)} FROM ${deliveries}
      WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR endpoint_id = $2)
        AND ($3::bigint IS NULL OR (occurred_at, id) < (${fromEpochMs("$3")}, $4))
      ORDER BY occurred_at DESC, id DESC LIMIT $5`,
    // A pending delivery is left alone: resetting it could hand a leased attempt to a second claimer.
    redeliver: `WITH reset AS (
        UPDATE ${deliveries} SET status = 'pending', attempts = 0, lease = NULL,
          next_attempt_at = ${fromEpochMs("$2")}, delivered_at = NULL
        WHERE id = $1 AND status <> 'pending' RETURNING *
      )
      SELECT ${deliveryColumns("reset")} FROM reset
      UNION ALL
      SELECT ${deliveryColumns(deliveries)} FROM ${deliveries}
      WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM reset)`,
  };

  return {
    async dispatch(routes, limit, now) {
      const [row] = await queryRows<{ taken: number | string }>(client, sql.dispatch, [
        JSON.stringify(
          routes.map((route) => ({
            endpoint_id: route.endpointId,
            ...(route.types ? { types: route.types } : {}),
          })),
        ),
        limit,
        epochMsParam(now, "now"),
      ]);
      return Number(row?.taken ?? 0);
    },

    async claim({ now, leaseMs, limit, lease, endpointIds }) {
      const rows = await queryRows<
        DeliveryRow & {
          e_type: string;
          e_occurred_at: number | string;
          e_owner_type: string;
          e_owner_id: string;
          e_key_id: string;
          e_actor: string;
          e_data: string;
        }
      >(client, sql.claim, [
        epochMsParam(now, "now"),
        Math.ceil(leaseMs),
        limit,
        lease,
        JSON.stringify(endpointIds),
      ]);
      return rows.map(
        (row): ClaimedWebhookDelivery => ({
          delivery: toDelivery(row),
          event: toStoredEvent({
            id: row.event_id,
            type: row.e_type,
            occurred_at: row.e_occurred_at,
            owner_type: row.e_owner_type,
            owner_id: row.e_owner_id,
            key_id: row.e_key_id,
            actor: row.e_actor,
            data: row.e_data,
          } satisfies EventRow),
        }),
      );
    },

    async settle(id, lease, outcome) {
      const rows = await queryRows(client, sql.settle, [
        id,
        lease,
        outcome.status,
        outcome.status === "pending"
          ? epochMsParam(outcome.nextAttemptAt ?? outcome.at, "nextAttemptAt")
          : null,
        outcome.responseStatus,
        outcome.status === "delivered" ? null : outcome.error,
        outcome.status === "delivered" ? epochMsParam(outcome.at, "at") : null,
      ]);
      return rows.length > 0;
    },

    async list(query) {
      const rows = await queryRows<DeliveryRow>(client, sql.list, [
        query.status ?? null,
        query.endpointId ?? null,
        query.after ? epochMsParam(query.after.occurredAt, "after.occurredAt") : null,
        query.after?.id ?? null,
        query.limit,
      ]);
      return rows.map(toDelivery);
    },

    async redeliver(id, now) {
      const [row] = await queryRows<DeliveryRow>(client, sql.redeliver, [
        id,
        epochMsParam(now, "now"),
      ]);
      return row ? toDelivery(row) : undefined;
    },
  };
}
