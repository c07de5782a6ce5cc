/**
 * Metering to Stripe in the demo, when `KEYWARD_STRIPE_SECRET_KEY` is set (docs/billing.md): every
 * request served with an API key adds 1 to the owner's `keyward_api_requests` meter, and the
 * credits it spent to `keyward_api_credits`, per `KEYWARD_METER_WINDOW`; closed windows go to
 * Stripe (or the server `KEYWARD_STRIPE_API_URL` names) through the `stripe` SDK.
 *
 * The Stripe customer is the key owner's id as it is (`payload.stripe_customer_id`): only a local
 * server accepts that; real Stripe needs a `cus_…` id, which a real host maps its owners to.
 *
 * The ledger is on PostgreSQL when `DATABASE_URL` is set (the same database as the keys; its table
 * is created at start), else in memory (lost when the server stops, as the rest of the state).
 * `stripe` and `@keyward/metering` are imported only when metering is on.
 */

import type { KeywardFeature } from "@keyward/core";
import type { LedgerSqlClient, MeteringApi, UsageLedger } from "@keyward/metering";
import type { DemoMeteringConfig } from "./metering-env.js";

/** The demo's meters, as the contract names them (created in Stripe with these event names). */
export const DEMO_METERS = {
  requests: "keyward_api_requests",
  credits: "keyward_api_credits",
} as const;

export type DemoMeteringFeature = KeywardFeature<"metering", MeteringApi>;

/** The pieces of SQL the PostgreSQL ledger needs: the pool the demo's store runs on. */
export type DemoLedgerClient = LedgerSqlClient;

export interface DemoMetering {
  feature: DemoMeteringFeature;
  /** For the banner: where usage goes, without the secret key. */
  description: string;
}

export async function openDemoMetering(
  config: DemoMeteringConfig,
  ledgerClient: DemoLedgerClient | undefined,
): Promise<DemoMetering> {
  const [{ default: Stripe }, { metering, memoryLedger, postgresLedger, stripeMeters }] =
    await Promise.all([import("stripe"), import("@keyward/metering")]);
  const stripe = new Stripe(config.stripeSecretKey, {
    ...(config.stripeApi ?? {}),
    appInfo: { name: "keyward-demo" },
  });
  let ledger: UsageLedger;
  if (ledgerClient !== undefined) {
    const durable = postgresLedger({ client: ledgerClient });
    await durable.migrate();
    ledger = durable;
  } else {
    ledger = memoryLedger();
  }
  const feature = metering({
    ledger,
    window: config.windowMs,
    // A short window is a demo's (to watch events arrive): export as often as windows close,
    // at most every 15 s (the default), once a window has settled for at most 5 s (the default).
    exportEvery: Math.min(config.windowMs, 15_000),
    settle: Math.min(config.windowMs, 5_000),
    // The owner's id as the customer: see above.
    exporters: [stripeMeters({ stripe, meters: DEMO_METERS, customer: (ownerId) => ownerId })],
  });
  const where = config.stripeApi
    ? `${config.stripeApi.protocol}://${config.stripeApi.host}:${config.stripeApi.port}`
    : "Stripe";
  return {
    feature,
    description: `${DEMO_METERS.requests} and ${DEMO_METERS.credits} to ${where}, ${config.window} windows, ledger ${ledgerClient ? "in PostgreSQL" : "in memory"}`,
  };
}
