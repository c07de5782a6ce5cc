/**
 * The delivery loop of one instance: dispatch undispatched events into deliveries, claim due ones
 * under a lease, send them, record the outcome. Several instances may run it against one store: the
 * store's atomic claims make each attempt one instance's (see `WebhookOutbox`).
 *
 * It never throws into the host: a store that fails or hangs (every call has a deadline) or a
 * receiver that fails is reported and retried on the next run. One run at a time per instance; a
 * nudge during a run makes one more run after it.
 */
import type {
  ClaimedWebhookDelivery,
  Clock,
  RandomSource,
  WebhookAttemptStatus,
  WebhookOutbox,
  WebhookRoute,
} from "@keyward/core";
import {
  randomBase62,
  StoreUnavailableError,
  toKeywardEvent,
  withDeadline,
} from "@keyward/core/toolkit";
import { retryDelay } from "./webhook-backoff.js";
import { sendWebhook } from "./webhook-sender.js";
import { type WebhookSigner, webhookSigner } from "./webhook-signer.js";
import { type WebhooksConfig, webhookDefaults } from "./webhooks-config.js";

/** Events one dispatch call takes; deliveries one claim takes (and sends at once). */
const dispatchBatch = 500;
const claimBatch = 16;
/** The most any single outbox call may take before this run gives up on it. */
const storeDeadlineMs = 10_000;

export interface WebhookRunSummary {
  /** Events turned into deliveries. */
  dispatched: number;
  delivered: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Deliveries that failed their last allowed attempt in this run. */
  dead: number;
}

export interface WebhookDeliverer {
  /** Runs once now (after a run in progress), resolving when every due delivery was attempted. */
  deliverNow(): Promise<WebhookRunSummary>;
  /** Starts a run soon, unless one is going (then one more follows it). Never rejects. */
  nudge(): void;
  /** `nudge`, unless `pollIntervalMs` is false (then only `deliverNow` sends): after a commit. */
  committed(): void;
  /** Starts the poll timer if it is not running; called at creation and on first use. */
  start(): void;
  /** Stops the timer and waits for the run in progress. */
  close(): Promise<void>;
  readonly leaseMs: number;
}

export function webhookDeliverer(
  config: WebhooksConfig,
  outbox: WebhookOutbox,
  options: {
    clock: Clock;
    random: RandomSource;
    reportFailure(message: string, cause: unknown): void;
    /** Told each attempt's end once it is recorded (the kernel's webhook observers). */
    onAttempt?(status: WebhookAttemptStatus): void;
  },
): WebhookDeliverer {
  const { clock, random, reportFailure, onAttempt } = options;
  const maxAttempts = config.maxAttempts ?? webhookDefaults.maxAttempts;
  const backoff = {
    initialMs: config.backoff?.initialMs ?? webhookDefaults.initialMs,
    maxMs: config.backoff?.maxMs ?? webhookDefaults.maxMs,
  };
  const timeoutMs = config.timeoutMs ?? webhookDefaults.timeoutMs;
  const pollIntervalMs = config.pollIntervalMs ?? webhookDefaults.pollIntervalMs;
  // Long enough for the request and the outcome's write; short enough that a dead claimer's
  // deliveries are soon taken over.
  const leaseMs = 2 * timeoutMs + 5_000;
  const send = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const endpoints = new Map(
    config.endpoints.map((endpoint) => [
      endpoint.id,
      { url: endpoint.url, signer: webhookSigner(endpoint.secret) as WebhookSigner },
    ]),
  );
  const endpointIds = config.endpoints.map((endpoint) => endpoint.id);
  const routes: WebhookRoute[] = config.endpoints.map((endpoint) => ({
    endpointId: endpoint.id,
    ...(endpoint.types ? { types: [...endpoint.types] } : {}),
  }));

  const store = <T>(call: () => Promise<T>, what: string): Promise<T> =>
    withDeadline(
      Promise.resolve().then(call),
      storeDeadlineMs,
      () =>
        new StoreUnavailableError(
          "timeout",
          "webhook outbox",
          `${what} did not answer within ${storeDeadlineMs} ms`,
        ),
    );

  const attempt = async (
    claimed: ClaimedWebhookDelivery,
    lease: string,
    summary: WebhookRunSummary,
  ) => {
    const { delivery, event } = claimed;
    const endpoint = endpoints.get(delivery.endpointId);
    const at = clock.now();
    const result = endpoint
      ? await sendWebhook({
          fetch: send,
          url: endpoint.url,
          signer: endpoint.signer,
          messageId: event.id,
          body: JSON.stringify(toKeywardEvent(event)),
          at: new Date(at),
          timeoutMs,
        })
      : // An endpoint removed from the configuration since: nothing to send to, dead-lettered.
        { ok: false as const, responseStatus: null, error: "endpoint no longer configured" };
    const finishedAt = clock.now();
    if (result.ok) {
      await store(
        () =>
          outbox.settle(delivery.id, lease, {
            status: "delivered",
            at: finishedAt,
            responseStatus: result.responseStatus,
          }),
        "recording a delivery",
      );
      summary.delivered += 1;
      onAttempt?.("delivered");
      return;
    }
    const dead = !endpoint || delivery.attempts >= maxAttempts;
    await store(
      () =>
        outbox.settle(delivery.id, lease, {
          status: dead ? "dead" : "pending",
          at: finishedAt,
          ...(dead
            ? {}
            : { nextAttemptAt: finishedAt + retryDelay(delivery.attempts, backoff, random) }),
          responseStatus: result.responseStatus,
          error: result.error,
        }),
      "recording a failed delivery",
    );
    onAttempt?.(dead ? "dead" : "retrying");
    if (dead) {
      summary.dead += 1;
      // Ids and the failure only: never the URL, the secret or the event's content.
      reportFailure(
        `webhook delivery ${delivery.id} (event ${event.id}, endpoint ${delivery.endpointId}) is dead after ${delivery.attempts} attempts`,
        new Error(result.error),
      );
    } else {
      summary.retrying += 1;
    }
  };

  const run = async (): Promise<WebhookRunSummary> => {
    const summary: WebhookRunSummary = { dispatched: 0, delivered: 0, retrying: 0, dead: 0 };
    for (;;) {
      const taken = await store(
        () => outbox.dispatch(routes, dispatchBatch, clock.now()),
        "dispatching events",
      );
      summary.dispatched += taken;
      if (taken < dispatchBatch) break;
    }
    for (;;) {
      const lease = randomBase62(24, random);
      const claimed = await store(
        () => outbox.claim({ now: clock.now(), leaseMs, limit: claimBatch, lease, endpointIds }),
        "claiming deliveries",
      );
      const settled = await Promise.allSettled(claimed.map((one) => attempt(one, lease, summary)));
      for (const outcome of settled) {
        if (outcome.status === "rejected")
          reportFailure(
            "recording a webhook delivery failed; it will be retried when its lease ends",
            outcome.reason,
          );
      }
      if (claimed.length < claimBatch) return summary;
    }
  };

  let running: Promise<WebhookRunSummary> | undefined;
  let again = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const runExclusive = (): Promise<WebhookRunSummary> => {
    const previous = running ?? Promise.resolve(undefined);
    const next: Promise<WebhookRunSummary> = previous
      .catch(() => undefined)
      .then(() => run())
      .finally(() => {
        if (running === next) running = undefined;
      });
    running = next;
    return next;
  };

  const nudge = () => {
    if (closed) return;
    if (running) {
      if (again) return;
      again = true;
      running
        .catch(() => undefined)
        .then(() => {
          again = false;
          nudge();
        });
      return;
    }
    runExclusive().catch((error) => reportFailure("delivering webhooks failed; will retry", error));
  };

  return {
    leaseMs,
    deliverNow: () => runExclusive(),
    nudge,
    committed() {
      if (pollIntervalMs !== false) nudge();
    },
    start() {
      if (timer !== undefined || closed || pollIntervalMs === false) return;
      try {
        timer = setInterval(nudge, pollIntervalMs);
        (timer as { unref?: () => void }).unref?.();
      } catch {
        // Cloudflare Workers refuse timers outside a request: started again on first use.
        timer = undefined;
      }
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
