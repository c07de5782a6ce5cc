import type { KeywardConfig } from "@keyward/core";

/**
 * One round of a layered-exactness test, as every worker process runs it: `requests` requests,
 * `inFlight` at a time, spread in turn over `keys`, on a clock fixed at `now`.
 *
 * @typeParam Where where the store keeps this test's data (a PostgreSQL schema, a Redis prefix),
 *   as the worker's `store` reads it.
 */
export interface LayeredJob<Where> {
  where: Where;
  now: number;
  tiers: KeywardConfig["tiers"];
  /** Per lane: the secret, the credits a request spends, and the scopes its route requires. */
  keys: { secret: string; cost: number; scopes?: string[] }[];
  requests: number;
  inFlight: number;
}

/** What one worker answers for a round: admitted requests per lane, refusals by their detail. */
export interface LayeredResult {
  admitted: number[];
  refusals: Record<string, number>;
}
