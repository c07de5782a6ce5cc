/**
 * `AllowanceStore` on PostgreSQL: quotas and credits exact across instances, for deployments whose
 * rate limits are per instance (memory). One transaction per request:
 *
 * 1. an upsert of every layer's row that returns its state and locks it until COMMIT (rows are
 *    taken in bucket order, so two requests never wait on each other in a cycle);
 * 2. `stepLayer` of `@keyward/core` on those states, in this process: the same steps as every store;
 * 3. only if every layer admits the request, one UPDATE writes the new states.
 *
 * Concurrent requests for one owner queue on the row lock, so none reads a balance another is about
 * to spend: never overspent, never lost. Every statement runs through the store's guarded client,
 * with its deadline and circuit breaker.
 *
 * Beside Redis, the same table keeps the durable balance of credits spent there (`loadCredits`,
 * `saveCredits`): what a lost Redis state is seeded from.
 */
import type {
  AllowanceStore,
  CreditSeed,
  LayerDecision,
  LayeredRead,
  LimitLayer,
} from "@keyward/core";
import { isNewerCredits, stepLayer } from "@keyward/core/toolkit";
import { inTransaction, type PostgresClient, queryRows } from "../client.js";
import type { Naming } from "../schema/naming.js";

interface StateRow {
  bucket: string;
  /** bigint[] as text, `{1,2,3}`: parsed here, so no driver's array handling is relied on. */
  state: string;
}

function parseState(text: string | undefined): number[] | undefined {
  if (text === undefined || text === "{}") return undefined;
  return text.slice(1, -1).split(",").map(Number);
}

const stateText = (state: readonly number[]) => `{${state.join(",")}}`;

/** A credits state of three whole numbers a bigint column keeps exactly (safe integers). */
function isStorableCredits(state: readonly number[] | undefined): state is readonly number[] {
  return state?.length === 3 && state.every((value) => Number.isSafeInteger(value));
}

export function postgresAllowanceStore(client: PostgresClient, { tables }: Naming): AllowanceStore {
  const table = tables.allowances;
  const sql = {
    lock: `INSERT INTO ${table} (bucket, state)
      SELECT bucket, '{}' FROM unnest($1::text[]) AS bucket ORDER BY bucket
      ON CONFLICT (bucket) DO UPDATE SET bucket = EXCLUDED.bucket
      RETURNING bucket, state::text AS state`,
    write: `UPDATE ${table} AS a SET state = v.state::bigint[]
      FROM unnest($1::text[], $2::text[]) AS v(bucket, state) WHERE a.bucket = v.bucket`,
    read: `SELECT bucket, state::text AS state FROM ${table} WHERE bucket = ANY($1::text[])`,
    // Newer only (isNewerCredits in @keyward/core): a later grant, a later refill period, or a
    // lower balance in the same one; a row another layer kind or the lock's placeholder left
    // ('{}') is replaced. Instances may save in any order and the latest state stays.
    saveCredits: `INSERT INTO ${table} AS a (bucket, state)
      SELECT v.bucket, ARRAY[v.granted, v.balance, v.refilled]
      FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
        AS v(bucket, granted, balance, refilled)
      ORDER BY v.bucket
      ON CONFLICT (bucket) DO UPDATE SET state = EXCLUDED.state
      WHERE cardinality(a.state) <> 3
        OR (EXCLUDED.state[1], EXCLUDED.state[3], -EXCLUDED.state[2])
          > (a.state[1], a.state[3], -a.state[2])`,
  };

  const sortedBuckets = (layers: readonly LimitLayer[]) =>
    [...new Set(layers.map((layer) => layer.bucket))].sort();

  /** Locks the layers' rows, steps them with `change`, and writes what it returns. */
  const update = <T>(
    layers: readonly LimitLayer[],
    change: (states: Map<string, number[] | undefined>) => {
      result: T;
      writes?: [string, number[]][];
    },
  ) =>
    inTransaction(client, async (transaction) => {
      const rows = await queryRows<StateRow>(transaction, sql.lock, [sortedBuckets(layers)]);
      const states = new Map(rows.map((row) => [row.bucket, parseState(row.state)]));
      const { result, writes } = change(states);
      if (writes && writes.length > 0) {
        await transaction.query(sql.write, [
          writes.map(([bucket]) => bucket),
          writes.map(([, state]) => stateText(state)),
        ]);
      }
      return result;
    });

  return {
    consume: ({ layers, now }: LayeredRead) =>
      update(layers, (states) => {
        const steps = layers.map((layer) => stepLayer(states.get(layer.bucket), now, layer));
        const decisions = steps.map((step) => step.decision);
        const allowed = decisions.every((decision) => decision.allowed);
        // All-or-nothing: a refusal writes nothing, and COMMIT releases the locks unchanged.
        const writes = allowed
          ? layers.map(
              (layer, index) => [layer.bucket, [...steps[index]!.state]] as [string, number[]],
            )
          : [];
        return { result: { allowed, layers: decisions }, writes };
      }),

    refund: ({ layers }: LayeredRead) =>
      update(layers, (states) => {
        const writes: [string, number[]][] = [];
        for (const layer of layers) {
          const state = states.get(layer.bucket);
          if (!state) continue;
          if (layer.layer === "quota" && state[1]! > 0) {
            writes.push([layer.bucket, [state[0]!, state[1]! - 1]]);
          } else if (layer.layer === "credits" && state[0] === layer.grantedAt) {
            writes.push([layer.bucket, [state[0]!, state[1]! + layer.cost, state[2]!]]);
          }
        }
        return { result: undefined, writes };
      }),

    async loadCredits(buckets: readonly string[]): Promise<Map<string, number[]>> {
      const rows = await queryRows<StateRow>(client, sql.read, [[...new Set(buckets)].sort()]);
      const states = new Map<string, number[]>();
      for (const row of rows) {
        const state = parseState(row.state);
        if (state?.length === 3) states.set(row.bucket, state);
      }
      return states;
    },

    async saveCredits(states: readonly CreditSeed[]): Promise<void> {
      // One row per bucket in one statement: an upsert may not touch a row twice.
      const latest = new Map<string, readonly number[]>();
      for (const { bucket, state } of states) {
        // Only states bigint holds exactly: one out-of-range balance (a key stored with credits no
        // bound refused) would fail the whole statement, every save, and so every other bucket's.
        if (!isStorableCredits(state)) continue;
        if (isNewerCredits(state, latest.get(bucket))) {
          latest.set(bucket, state);
        }
      }
      if (latest.size === 0) return;
      const entries = [...latest];
      await client.query(sql.saveCredits, [
        entries.map(([bucket]) => bucket),
        entries.map(([, state]) => String(state[0])),
        entries.map(([, state]) => String(state[1])),
        entries.map(([, state]) => String(state[2])),
      ]);
    },

    async read({ layers, now }: LayeredRead): Promise<LayerDecision[]> {
      const rows = await queryRows<StateRow>(client, sql.read, [sortedBuckets(layers)]);
      const states = new Map(rows.map((row) => [row.bucket, parseState(row.state)]));
      return layers.map((layer) => stepLayer(states.get(layer.bucket), now, layer, false).decision);
    },
  };
}
