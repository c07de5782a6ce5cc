/**
 * `@keyward/otel`: OpenTelemetry metrics and traces for Keyward. A feature module of its own package,
 * so `@opentelemetry/api` (its peer) reaches only the hosts that list it. It reports what the
 * kernel's observation points hear (`verify`'s phase `around`, and the stores it attaches to): every verification's
 * outcome, tier, refusing layer and duration; every Redis or PostgreSQL call and circuit breaker.
 * Without an SDK it lists no observer at all and costs nothing. See docs/observability.md.
 *
 * @example
 * import { otel } from "@keyward/otel";
 * // After the OpenTelemetry SDK has started (or pass `meterProvider` / `tracerProvider`):
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [otel()] });
 */
import type { KeywardFeature, WebhookAttemptStatus } from "@keyward/core";
import { attachStoreObserver, observeVerify } from "@keyward/core/toolkit";
import { type MeteringRun, meteringTelemetry } from "./metering-telemetry.js";
import { checkOtelOptions, type OtelOptions } from "./otel-options.js";
import { resolveProviders } from "./providers.js";
import { storeTelemetry } from "./store-telemetry.js";
import { verifyTelemetry } from "./verify-telemetry.js";
import { webhookTelemetry } from "./webhook-telemetry.js";

export { attributeNames, instrumentNames, spanNames } from "./names.js";
export type { OtelOptions } from "./otel-options.js";

/**
 * Throws a `TypeError` for a malformed option. The providers are resolved here: an SDK registered
 * globally after this call is not seen (the metrics API has no proxy), so start it first.
 */
export function otel(options: OtelOptions = {}): KeywardFeature<"otel"> {
  checkOtelOptions(options);
  const { meter, tracer } = resolveProviders(options);
  // No SDK: no observer, so verify is not wrapped at all.
  if (meter === undefined && tracer === undefined) return { name: "otel", install: () => ({}) };
  const verify = verifyTelemetry(meter, tracer, options.keyIds === true);
  const stores = storeTelemetry(meter, tracer);
  const webhooks = webhookTelemetry(meter);
  const metering = meteringTelemetry(meter);
  return {
    name: "otel",
    extends: {
      verify: { around: [observeVerify(verify.observer)] },
    },
    // The stores that report their calls (Redis, PostgreSQL) report them to this observer too.
    install: ({ store, bus }) => {
      attachStoreObserver(store, stores.observer);
      // The webhooks feature's deliveries, as it publishes them (nothing without it).
      bus.subscribe("webhook.attempted", (message) =>
        webhooks.observer.attempted((message as { status: WebhookAttemptStatus }).status),
      );
      bus.subscribe("webhook.backlog", (message) =>
        webhooks.observer.backlog?.((message as { read: (max: number) => Promise<number> }).read),
      );
      // The metering feature's exports (`@keyward/metering`), as it publishes them.
      bus.subscribe("metering.exported", (message) => metering.exported(message as MeteringRun));
      bus.subscribe("metering.backlog", (message) =>
        metering.backlog(
          (message as { read: () => Promise<{ sink: string; windows: number }[]> }).read,
        ),
      );
      bus.subscribe("metering.ledger_failed", () => metering.ledgerFailed());
      return {
        close: async () => {
          metering.close();
          verify.close();
          stores.close();
          webhooks.close();
        },
      };
    },
  };
}
