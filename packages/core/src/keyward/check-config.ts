/**
 * The checks `createKeyward` runs on its configuration before building anything, so a mistake
 * throws at start-up with the option's name and the fix, instead of surfacing as a 401 or a 500 on
 * some later request. Each part's own factory checks its details (scope names, rate limits, JWT
 * keys); this file catches what those cannot see: the wrong kind of value for an option.
 */
import { checkEnvironmentsOption } from "../environments/environments.js";
import { checkEventsConfig } from "../events/events-config.js";
import type { KeywardLogger } from "../logging/logger.js";
import { checkUsageConfig } from "../usage/usage-config.js";
import type { KeywardConfig } from "./config.js";

/** The smallest pepper accepted: as long as the HMAC-SHA-256 output (RFC 2104 §3). */
export const minPepperBytes = 32;

export function checkConfig(config: KeywardConfig): void {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("Keyward: createKeyward needs a configuration object");
  }
  const store = config.store as Partial<KeywardConfig["store"]> | undefined;
  if (!store?.keys || !store.usage || !store.rateLimits) {
    const missing = (["keys", "usage", "rateLimits"] as const).filter((part) => !store?.[part]);
    throw new TypeError(
      `Keyward: \`store\` must provide \`keys\`, \`usage\` and \`rateLimits\`; missing: ${missing.join(", ")}. Use memoryStore(), or combineStores(...) for the parts of other stores.`,
    );
  }
  const { rateLimits } = store;
  if (rateLimits.recordsUsage && rateLimits.usageStore && rateLimits.usageStore !== store.usage) {
    // A hand-assembled store that combineStores would have refused: usage counted where no one reads.
    throw new TypeError(
      "Keyward: `store.rateLimits` counts usage inside its own call (recordsUsage), but `store.usage` is another store, which never sees those counts. Take usage from the same store (combineStores(redisStore(...), postgresStore(...))), or create the rate-limit store with recordsUsage: false.",
    );
  }
  requireRecord("scopes", config.scopes, '{ "profile:read": "Read profiles" }');
  requireRecord("tiers", config.tiers, '{ free: { rateLimit: { limit: 60, window: "1m" } } }');
  if (
    config.trustedOrigins !== undefined &&
    !(Array.isArray(config.trustedOrigins) && config.trustedOrigins.every(isOrigin))
  ) {
    throw new TypeError(
      'Keyward: `trustedOrigins` must be a list of origins like "https://app.example.com" (scheme, host and port only, no path)',
    );
  }
  for (const name of ["accountTier", "onError", "session"] as const) {
    if (config[name] !== undefined && typeof config[name] !== "function") {
      throw new TypeError(`Keyward: \`${name}\` must be a function, got ${kindOf(config[name])}`);
    }
  }
  checkLogger(config.logger);
  if (config.organizations !== undefined) checkOrganizations(config.organizations);
  if (config.keyUpdates !== undefined && typeof config.keyUpdates !== "boolean") {
    throw new TypeError(
      `Keyward: \`keyUpdates\` must be a boolean, got ${kindOf(config.keyUpdates)}`,
    );
  }
  checkGracefulRotation(config.gracefulRotation);
  const maxKeys = config.maxKeysPerOwner;
  if (maxKeys !== undefined && maxKeys !== false && !(Number.isInteger(maxKeys) && maxKeys > 0)) {
    throw new TypeError(
      `Keyward: \`maxKeysPerOwner\` must be a positive whole number or false, got ${kindOf(maxKeys)}`,
    );
  }
  checkEnvironmentsOption(config.environments, config.keyPrefix);
  checkEventsConfig(
    config.events,
    store.keys.events !== undefined,
    typeof store.keys.listExpiring === "function",
  );
  if (config.pepper !== undefined) checkPepper(config.pepper);
  checkUsageConfig(config.usage, store.usage);
}

function checkGracefulRotation(option: KeywardConfig["gracefulRotation"]): void {
  if (option === undefined || typeof option === "boolean") return;
  const max = typeof option === "object" && option !== null ? option.maxGracePeriodSeconds : option;
  if (
    typeof option !== "object" ||
    option === null ||
    (max !== undefined && !(Number.isSafeInteger(max) && (max as number) >= 0))
  ) {
    throw new TypeError(
      `Keyward: \`gracefulRotation\` must be true, false or { maxGracePeriodSeconds: a whole number of seconds, 0 or more }, got ${kindOf(option)}`,
    );
  }
}

/** Configuration that works but is probably not what was meant: reported once, at start. */
export function warnAboutConfig(config: KeywardConfig, logger: KeywardLogger): void {
  if (config.jwt === undefined && config.session === undefined) {
    logger.warn(
      "no `jwt` or `session` is configured, so the key-management endpoints will refuse every request with 401 and host routes accept API keys only. Set `jwt: { secret }` (or `jwksUrl`, `key`) or `session`, or `jwt: false` if this instance only verifies keys.",
    );
  }
}

function requireRecord(name: string, value: unknown, example: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `Keyward: \`${name}\` must be an object keyed by name, like ${example}; got ${kindOf(value)}`,
    );
  }
}

function checkLogger(logger: unknown): void {
  if (logger === undefined || logger === false) return;
  const candidate = logger as Partial<KeywardLogger> | null;
  if (typeof candidate?.error !== "function" || typeof candidate.warn !== "function") {
    throw new TypeError(
      "Keyward: `logger` must have `error(message, cause)` and `warn(message, detail)` methods, or be false",
    );
  }
}

function checkPepper(pepper: unknown): void {
  const length =
    typeof pepper === "string"
      ? new TextEncoder().encode(pepper).length
      : pepper instanceof Uint8Array
        ? pepper.length
        : -1;
  if (length === -1) {
    throw new TypeError(
      `Keyward: \`pepper\` must be a string or a Uint8Array, got ${kindOf(pepper)}`,
    );
  }
  if (length < minPepperBytes) {
    throw new TypeError(
      `Keyward: \`pepper\` must be at least ${minPepperBytes} bytes, got ${length}${length === 0 ? " (is its environment variable set?)" : ""}. Generate one with \`openssl rand -base64 32\` and keep it secret; changing it later invalidates every key.`,
    );
  }
}

function isOrigin(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

function checkOrganizations(organizations: unknown): void {
  const candidate = organizations as KeywardConfig["organizations"];
  if (typeof candidate !== "object" || candidate === null) {
    throw new TypeError(
      "Keyward: `organizations` must be an object like { memberships: (claims) => [{ id, role, tier }] }",
    );
  }
  if (typeof candidate.memberships !== "function") {
    throw new TypeError(
      `Keyward: \`organizations.memberships\` must be a function, got ${kindOf(candidate.memberships)}`,
    );
  }
  for (const action of ["manage", "read"] as const) {
    const roles = candidate.roles?.[action];
    if (
      roles !== undefined &&
      !(Array.isArray(roles) && roles.every((role) => typeof role === "string" && role !== ""))
    ) {
      throw new TypeError(
        `Keyward: \`organizations.roles.${action}\` must be a list of role names, got ${kindOf(roles)}`,
      );
    }
  }
}
