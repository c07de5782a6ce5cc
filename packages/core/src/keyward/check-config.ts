/**
 * The checks `createKeyward` runs on its configuration before building anything, so a mistake
 * throws at start-up with the option's name and the fix, instead of surfacing as a 401 or a 500 on
 * some later request. Each part's own factory checks its details (scope names, rate limits, JWT
 * keys); this file catches what those cannot see: the wrong kind of value for an option.
 */
import { checkEnvironmentsOption } from "../environments/environments.js";
import type { KeywardLogger } from "../logging/logger.js";
import { checkUsageConfig } from "../usage/usage-config.js";
import type { KeywardConfig } from "./config.js";
import { kindOf } from "./kind-of.js";

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
  refuseUnknownOptions(config);
  requireRecord("scopes", config.scopes, '{ "profile:read": "Read profiles" }');
  requireRecord("tiers", config.tiers, '{ free: { rateLimit: { limit: 60, window: "1m" } } }');
  checkHttp(config.http);
  checkKeys(config.keys);
  for (const name of ["accountTier", "onError", "session"] as const) {
    if (config[name] !== undefined && typeof config[name] !== "function") {
      throw new TypeError(`Keyward: \`${name}\` must be a function, got ${kindOf(config[name])}`);
    }
  }
  checkLogger(config.logger);
  checkUsageConfig(config.usage, store.usage);
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
      "Keyward: `logger` must have `error(message, cause)` and `warn(message, detail)` methods (or be a pino-style logger such as Fastify's `app.log`), or be false",
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
      `Keyward: \`keys.pepper\` must be a string or a Uint8Array, got ${kindOf(pepper)}`,
    );
  }
  if (length < minPepperBytes) {
    throw new TypeError(
      `Keyward: \`keys.pepper\` must be at least ${minPepperBytes} bytes, got ${length}${length === 0 ? " (is its environment variable set?)" : ""}. Generate one with \`openssl rand -base64 32\` and keep it secret; changing it later invalidates every key.`,
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

/** The kernel's options; anything else is a mistake, or an option that became a feature. */
const kernelOptions = new Set([
  "features",
  "store",
  "scopes",
  "tiers",
  "jwt",
  "session",
  "accountTier",
  "keys",
  "http",
  "failedLookups",
  "usage",
  "logger",
  "onError",
  "clock",
]);

/**
 * An option the kernel does not have fails the start instead of being dropped in silence: a typo,
 * or an option that moved into a feature or a group (docs/migrating.md lists where each went).
 */
function refuseUnknownOptions(config: KeywardConfig): void {
  const unknown = Object.keys(config).filter(
    (option) => !kernelOptions.has(option) && (config as never)[option] !== undefined,
  );
  if (unknown.length === 0) return;
  throw new TypeError(
    `Keyward: ${unknown.map((option) => `\`${option}\``).join(", ")} ${unknown.length === 1 ? "is not an option" : "are not options"} of createKeyward, whose options are ${[...kernelOptions].join(", ")}. Features are listed in \`features\` (docs/features.md); docs/migrating.md says where earlier options went.`,
  );
}

function checkHttp(http: unknown): void {
  if (http === undefined) return;
  if (typeof http !== "object" || http === null || Array.isArray(http)) {
    throw new TypeError(
      "Keyward: `http` must be an object like { basePath, bodyLimit, trustedOrigins }",
    );
  }
  const { trustedOrigins } = http as NonNullable<KeywardConfig["http"]>;
  if (
    trustedOrigins !== undefined &&
    !(Array.isArray(trustedOrigins) && trustedOrigins.every(isOrigin))
  ) {
    throw new TypeError(
      'Keyward: `http.trustedOrigins` must be a list of origins like "https://app.example.com" (scheme, host and port only, no path)',
    );
  }
}

function checkKeys(keys: unknown): void {
  if (keys === undefined) return;
  if (typeof keys !== "object" || keys === null || Array.isArray(keys)) {
    throw new TypeError("Keyward: `keys` must be an object like { prefix, pepper, environments }");
  }
  const { pepper, environments } = keys as NonNullable<KeywardConfig["keys"]>;
  if (pepper !== undefined) checkPepper(pepper);
  checkEnvironmentsOption(environments);
}
