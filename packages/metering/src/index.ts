/**
 * `@keyward/metering`: usage you can bill. Every served request (and the credits it spent, and a
 * host's own meters through `keyward.metering.record`) becomes usage in a durable ledger, per owner,
 * meter and window; closed windows are exported by one instance at a time, retried under the same
 * deterministic identifier until the sink acknowledges them: Stripe Billing meters, OpenMeter, any
 * CloudEvents sink. See docs/billing.md.
 *
 * @example
 * import Stripe from "stripe";
 * import { metering, postgresLedger, stripeMeters } from "@keyward/metering";
 * const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
 * const keyward = createKeyward({
 *   store, scopes, tiers,
 *   features: [
 *     metering({
 *       ledger: postgresLedger({ client: pool }),
 *       exporters: [stripeMeters({
 *         stripe,
 *         meters: { requests: "keyward_api_requests", credits: "keyward_api_credits" },
 *         customer: (ownerId) => customerIdOf(ownerId),
 *       })],
 *     }),
 *   ],
 * });
 */

export { eventIdentifier } from "./export/event-identifier.js";
export type { ExportRun } from "./export/exporter.js";
export type { MeterEvent, MeterSink, SendOutcome, SinkTotal } from "./export/meter-sink.js";
export { memoryLedger } from "./ledger/memory-ledger.js";
export {
  type LedgerSqlClient,
  type PostgresLedger,
  type PostgresLedgerOptions,
  postgresLedger,
} from "./ledger/postgres-ledger.js";
export {
  type RedisLedgerClient,
  type RedisLedgerOptions,
  type RidingLedger,
  redisLedger,
} from "./ledger/redis-ledger.js";
export type {
  Adjustment,
  DueQuery,
  DueWindow,
  LedgerAddition,
  LedgerTotal,
  LedgerWindow,
  PendingSend,
  UsageLedger,
} from "./ledger/usage-ledger.js";
export type { MeteredUsageSection } from "./metered-usage-section.js";
export type { MeteringConfig } from "./metering-config.js";
export { type MeteringApi, type MeteringStatus, metering } from "./metering-feature.js";
export { periodRange, type ReconcileLine, type Reconciliation } from "./reconcile.js";
export { type CloudEventsOptions, cloudEvents } from "./sinks/cloud-events.js";
export { type OpenMeterOptions, openMeter } from "./sinks/open-meter.js";
export { type StripeMetersOptions, stripeMeters } from "./sinks/stripe-meters.js";
