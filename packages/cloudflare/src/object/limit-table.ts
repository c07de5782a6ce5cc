/**
 * Limit state, in an owner's (or a key's, or a bucket's) object: one row per bucket, the state
 * tuple core's algorithms step (`stepRateLimit` for one rate limit, `stepLayer` for each layer),
 * with the policy it was written under and when it can be dropped. Every call is synchronous
 * inside the object, from the first read to the last write: one atomic step, as the memory store's
 * is in its process, but for every isolate and location at once.
 *
 * Beside the state, the versions of the owner's keys as the `keys` object last told them
 * (`noteVersions`): a limit call names the version of the record its isolate verified with, and a
 * call about an older one is refused before anything is spent (`stale`).
 */
import type {
  LayerDecision,
  LayeredDecision,
  LimitLayer,
  RateLimitDecision,
  RateLimitPolicy,
} from "@keyward/core";
import { type LayerStep, stepLayer, stepRateLimit } from "@keyward/core/toolkit";
import type { WhereHeldAnswer } from "../protocol/where-held.js";
import type { SqlStorage } from "./durable-object-state.js";

export const limitTableSchema = `
CREATE TABLE IF NOT EXISTS limit_state (
  bucket TEXT PRIMARY KEY,
  policy TEXT NOT NULL,
  state TEXT NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS limit_state_expiry ON limit_state (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS key_versions (key_id TEXT PRIMARY KEY, version INTEGER NOT NULL);
`;

/** The key version a limit call was verified with; absent for a bucket that is no key's. */
export interface VersionCheck {
  keyId: string;
  version: number;
}

/** A limit call's answer: the decision, or `stale` when the key changed since its isolate read it. */
export type LimitAnswer<T> = { decision: T } | { stale: true };

type StateRow = { policy: string; state: string; expires_at: number | null };

/** Rate state is reused only under the policy it was written with (as in the memory store). */
const policyLabel = (policy: RateLimitPolicy) =>
  `${policy.algorithm}/${policy.limit}/${policy.windowMs}`;

const layerPolicy = (layer: LimitLayer) =>
  layer.layer === "key" || layer.layer === "owner" ? policyLabel(layer.policy) : layer.layer;

/** Expired rows dropped per write: more than a call can add, so they never pile up. */
const sweepBatch = 8;

export function limitTable(sql: SqlStorage) {
  const read = (bucket: string, policy: string, now: number) => {
    const row = sql
      .exec<StateRow>("SELECT policy, state, expires_at FROM limit_state WHERE bucket = ?", bucket)
      .toArray()[0];
    if (!row || row.policy !== policy || (row.expires_at !== null && row.expires_at <= now)) {
      return undefined;
    }
    return JSON.parse(row.state) as number[];
  };

  const write = (
    bucket: string,
    policy: string,
    step: { state: readonly number[]; expiresAt: number },
    now: number,
  ) => {
    if (step.expiresAt <= now) {
      sql.exec("DELETE FROM limit_state WHERE bucket = ?", bucket);
      return;
    }
    sql.exec(
      "INSERT INTO limit_state (bucket, policy, state, expires_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (bucket) DO UPDATE SET policy = ?2, state = ?3, expires_at = ?4",
      bucket,
      policy,
      JSON.stringify(step.state),
      // Credits never expire (`Infinity`): no time at all.
      Number.isFinite(step.expiresAt) ? step.expiresAt : null,
    );
    sql.exec(
      "DELETE FROM limit_state WHERE bucket IN (SELECT bucket FROM limit_state WHERE expires_at <= ? LIMIT ?)",
      now,
      sweepBatch,
    );
  };

  /** Whether a call verified with `check`'s version may go on: not when the key changed since. */
  const current = (check: VersionCheck | null) => {
    if (check === null) return true;
    const known = sql
      .exec<{ version: number }>("SELECT version FROM key_versions WHERE key_id = ?", check.keyId)
      .toArray()[0];
    return known === undefined || known.version <= check.version;
  };

  /** Whether this object has counted any of the layers (a row, expired or not, for its bucket). */
  const holdsAny = (layers: readonly LimitLayer[]) =>
    layers.some(
      (layer) =>
        sql.exec("SELECT 1 FROM limit_state WHERE bucket = ?", layer.bucket).toArray().length > 0,
    );

  const stepAll = (layers: readonly LimitLayer[], now: number, spend: boolean): LayeredDecision => {
    const steps: LayerStep[] = [];
    let allowed = true;
    for (const layer of layers) {
      const step = stepLayer(read(layer.bucket, layerPolicy(layer), now), now, layer);
      if (!step.decision.allowed) allowed = false;
      steps.push(step);
    }
    // All-or-nothing: a refused request leaves every layer as it was.
    if (spend && allowed) {
      layers.forEach((layer, index) => {
        write(layer.bucket, layerPolicy(layer), steps[index]!, now);
      });
    }
    return { allowed, layers: steps.map((step) => step.decision) };
  };

  return {
    consume(
      bucket: string,
      policy: RateLimitPolicy,
      now: number,
      check: VersionCheck | null,
    ): LimitAnswer<RateLimitDecision> {
      if (!current(check)) return { stale: true };
      const label = policyLabel(policy);
      const step = stepRateLimit(read(bucket, label, now), now, policy);
      write(bucket, label, step, now);
      return { decision: step.decision };
    },

    consumeLayers(
      layers: readonly LimitLayer[],
      now: number,
      check: VersionCheck | null,
    ): LimitAnswer<LayeredDecision> {
      if (!current(check)) return { stale: true };
      return { decision: stepAll(layers, now, true) };
    },

    /**
     * Budgets' give-back (credits layers with a negative cost), where the hold was charged
     * (`protocol/where-held.ts`). No version check: giving back what a request held admits
     * nothing, and must not be lost to a change of the key since.
     */
    giveBack(
      layers: readonly LimitLayer[],
      now: number,
      whereHeld: boolean,
    ): WhereHeldAnswer<LayeredDecision> {
      if (whereHeld && !holdsAny(layers)) return { elsewhere: true };
      return { decision: stepAll(layers, now, true) };
    },

    /** The layers' state, read only; with `whereHeld`, only if this object holds any of it. */
    readLayers(
      layers: readonly LimitLayer[],
      now: number,
      whereHeld = false,
    ): WhereHeldAnswer<LayerDecision[]> {
      if (whereHeld && !holdsAny(layers)) return { elsewhere: true };
      return {
        decision: layers.map(
          (layer) =>
            stepLayer(read(layer.bucket, layerPolicy(layer), now), now, layer, false).decision,
        ),
      };
    },

    /** Keeps the highest version told of each key: pushes may arrive in any order. */
    noteVersions(versions: readonly VersionCheck[]): null {
      for (const { keyId, version } of versions) {
        sql.exec(
          "INSERT INTO key_versions (key_id, version) VALUES (?1, ?2) ON CONFLICT (key_id) DO UPDATE SET version = max(version, ?2)",
          keyId,
          version,
        );
      }
      return null;
    },
  };
}
