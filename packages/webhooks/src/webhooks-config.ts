import type { EventTypes } from "@keyward/core";
import { isEndpointId } from "@keyward/core/toolkit";
import { decodeWebhookSecret } from "./webhook-signer.js";

/** One receiver of webhooks. */
export interface WebhookEndpoint {
  /** Names the endpoint in deliveries: 1 to 64 letters, digits, `_` or `-`; unique. */
  id: string;
  /** Where events are POSTed: an `https:` URL (`http:` is accepted for local receivers). */
  url: string;
  /**
   * The signing secret, in the Standard Webhooks form: `whsec_` and the base64 of 24 to 64 random
   * bytes. The receiver verifies each request with it.
   */
  secret: string;
  /**
   * Only these event types: the kernel's, or those a listed feature writes to the audit log
   * (`token.issued`, `budget.threshold`…), checked by `createKeyward`; omitted: every type (new
   * types included).
   */
  types?: readonly string[];
}

/** The configuration of `webhooks(config)` (the instance needs `events`). See docs/webhooks.md. */
export interface WebhooksConfig {
  endpoints: readonly WebhookEndpoint[];
  /** Attempts before a delivery is dead-lettered. Default 12 (about 5 hours of retries). */
  maxAttempts?: number;
  /** Retry delays: `initialMs` doubled each attempt, capped at `maxMs`, with jitter (½ to 1 of it). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** How long a receiver has to answer, in ms. Default 10,000. */
  timeoutMs?: number;
  /**
   * How often this instance looks for due deliveries, in ms; default 5,000. An instance also
   * delivers right after each change it makes. `false`: only when you call
   * `keyward.webhooks.deliverNow()` (a cron job, a scheduled Worker).
   */
  pollIntervalMs?: number | false;
  /** The `fetch` to send with; default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

export const webhookDefaults = {
  maxAttempts: 12,
  initialMs: 30_000,
  maxMs: 60 * 60 * 1000,
  timeoutMs: 10_000,
  pollIntervalMs: 5_000,
} as const;

const isPositive = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value > 0;

/** Throws a `TypeError` naming the field for anything `webhooks(config)` should not take. */
export function checkWebhooksConfig(webhooks: unknown): void {
  if (typeof webhooks !== "object" || webhooks === null || Array.isArray(webhooks)) {
    throw new TypeError(
      "Keyward: `webhooks(config)` takes an object like { endpoints: [{ id, url, secret }] }",
    );
  }
  const config = webhooks as WebhooksConfig;
  if (!Array.isArray(config.endpoints)) {
    throw new TypeError(
      "Keyward: `webhooks.endpoints` must be an array of { id, url, secret, types? }",
    );
  }
  const ids = new Set<string>();
  config.endpoints.forEach((endpoint: WebhookEndpoint, index: number) => {
    const at = `\`webhooks.endpoints[${index}]`;
    if (typeof endpoint !== "object" || endpoint === null) {
      throw new TypeError(`Keyward: ${at}\` must be an object like { id, url, secret }`);
    }
    if (!isEndpointId(endpoint.id)) {
      throw new TypeError(
        `Keyward: ${at}.id\` must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(endpoint.id)}`,
      );
    }
    if (ids.has(endpoint.id)) {
      throw new TypeError(`Keyward: ${at}.id\` ${JSON.stringify(endpoint.id)} is used twice`);
    }
    ids.add(endpoint.id);
    let url: URL | undefined;
    try {
      url = typeof endpoint.url === "string" ? new URL(endpoint.url) : undefined;
    } catch {}
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
      throw new TypeError(
        `Keyward: ${at}.url\` must be an http(s) URL, got ${JSON.stringify(endpoint.url)}`,
      );
    }
    // The message names the format, never the value: it is a secret.
    if (typeof endpoint.secret !== "string" || decodeWebhookSecret(endpoint.secret) === undefined) {
      throw new TypeError(
        `Keyward: ${at}.secret\` must be "whsec_" followed by the base64 of 24 to 64 random bytes (the Standard Webhooks form)`,
      );
    }
    // Which types the instance has is known once it is built (`checkEndpointTypes`): here, the
    // list's shape.
    if (endpoint.types !== undefined) {
      const bad = Array.isArray(endpoint.types)
        ? endpoint.types.filter((type) => typeof type !== "string")
        : [endpoint.types];
      if (bad.length > 0 || (endpoint.types as unknown[]).length === 0) {
        throw new TypeError(
          `Keyward: ${at}.types\` must be a non-empty list of event types; not event types: ${bad.map((t) => JSON.stringify(t)).join(", ") || "(empty list)"}`,
        );
      }
    }
  });
  if (
    config.maxAttempts !== undefined &&
    !(Number.isInteger(config.maxAttempts) && config.maxAttempts >= 1 && config.maxAttempts <= 100)
  ) {
    throw new TypeError(
      `Keyward: \`webhooks.maxAttempts\` must be a whole number from 1 to 100, got ${JSON.stringify(config.maxAttempts)}`,
    );
  }
  if (config.backoff !== undefined) {
    const { initialMs, maxMs } = config.backoff;
    if (initialMs !== undefined && !isPositive(initialMs)) {
      throw new TypeError(
        `Keyward: \`webhooks.backoff.initialMs\` must be a positive number of ms, got ${JSON.stringify(initialMs)}`,
      );
    }
    if (maxMs !== undefined && !isPositive(maxMs)) {
      throw new TypeError(
        `Keyward: \`webhooks.backoff.maxMs\` must be a positive number of ms, got ${JSON.stringify(maxMs)}`,
      );
    }
    if ((initialMs ?? webhookDefaults.initialMs) > (maxMs ?? webhookDefaults.maxMs)) {
      throw new TypeError(
        "Keyward: `webhooks.backoff.initialMs` must not exceed `webhooks.backoff.maxMs`",
      );
    }
  }
  if (config.timeoutMs !== undefined && !isPositive(config.timeoutMs)) {
    throw new TypeError(
      `Keyward: \`webhooks.timeoutMs\` must be a positive number of ms, got ${JSON.stringify(config.timeoutMs)}`,
    );
  }
  if (
    config.pollIntervalMs !== undefined &&
    config.pollIntervalMs !== false &&
    !isPositive(config.pollIntervalMs)
  ) {
    throw new TypeError(
      `Keyward: \`webhooks.pollIntervalMs\` must be a positive number of ms or false, got ${JSON.stringify(config.pollIntervalMs)}`,
    );
  }
  if (config.fetch !== undefined && typeof config.fetch !== "function") {
    throw new TypeError("Keyward: `webhooks.fetch` must be a function like globalThis.fetch");
  }
  if (config.fetch === undefined && typeof globalThis.fetch !== "function") {
    throw new TypeError("Keyward: `webhooks` needs a global `fetch`, or pass `webhooks.fetch`");
  }
}

/**
 * Each endpoint's `types` against the instance's event types, once it is built: a `TypeError`
 * naming the endpoint and every type the audit log cannot hold (unknown, or a type its feature
 * publishes on the bus only), since no event of it would ever be delivered.
 */
export function checkEndpointTypes(config: WebhooksConfig, types: EventTypes): void {
  config.endpoints.forEach((endpoint, index) => {
    const bad = (endpoint.types ?? []).filter((type) => !types.audits(type));
    if (bad.length === 0) return;
    const named = bad.map((type) =>
      types.busOnly(type)
        ? `${JSON.stringify(type)} (published on the instance's bus only, never written to the audit log)`
        : JSON.stringify(type),
    );
    throw new TypeError(
      `Keyward: \`webhooks.endpoints[${index}].types\` must be a non-empty list of event types; not event types: ${named.join(", ")}. The instance's event types: ${types.audited.join(", ")} (a feature's own types need that feature listed)`,
    );
  });
}
