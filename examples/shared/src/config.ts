import type { SigningKeysConfig } from "@keyward/core/agent-tokens";
import type { DemoTierLimits } from "@keyward/testing/demo-contract";
import { type OwnerLimits, parseOwnerLimits, parseQuotas, type Quotas } from "./layer-limits.js";
import { type DemoMeteringConfig, parseMeteringEnv } from "./metering/metering-env.js";
import { checkStoreUrl } from "./store-urls.js";
import { parseTierLimits } from "./tier-limits.js";
import { parseTokenSigningKey } from "./token-signing-key.js";

/**
 * The development JWT secret: public, so that a fresh clone works without setup, and long enough
 * for HS256 (32 bytes). Anyone who reads this file can mint tokens for a server that uses it, which
 * is why the server warns loudly at start whenever it does.
 */
export const developmentJwtSecret = "keyward-demo-development-secret-do-not-use-in-production";

export type Environment = Record<string, string | undefined>;

/** Everything an example reads from its environment (docs/examples.md lists the variables). */
export interface DemoConfig {
  /** `PORT`, default 3000; 0 picks a free port (the banner shows which). */
  port: number;
  /** `HOST`, default `127.0.0.1`: a server accepting a public secret stays off the network. */
  host: string;
  /** `KEYWARD_JWT_SECRET`, or the development secret. */
  jwtSecret: string;
  /** True when `KEYWARD_JWT_SECRET` is unset and the public development secret is in use. */
  usingDevelopmentSecret: boolean;
  /**
   * False when `NODE_ENV=production`. In development the demo also serves the key-management page
   * at `/` (see page/demo-page.ts); in production `/` stays a 404, as in v0.1.
   */
  developmentMode: boolean;
  /** Requests a minute per tier, after `KEYWARD_TIER_LIMITS`. */
  tierLimits: DemoTierLimits;
  /** `KEYWARD_OWNER_LIMITS`: requests a minute shared by an owner's keys, per tier; empty: none. */
  ownerLimits: OwnerLimits;
  /** `KEYWARD_QUOTAS`: requests per owner per UTC day or month, per tier; empty: none. */
  quotas: Quotas;
  /** `DATABASE_URL`: keys and usage on PostgreSQL. */
  databaseUrl: string | undefined;
  /** `REDIS_URL`: rate limits (and usage, when there is no database) on Redis. */
  redisUrl: string | undefined;
  /**
   * `KEYWARD_SECRET_SCANNING_KEYS_URL`: where the secret-scanning endpoint fetches the keys its
   * reports are signed with; unset: GitHub's (`secretScanning`'s default).
   */
  secretScanningKeysUrl: string | undefined;
  /**
   * `KEYWARD_MAX_KEY_LIFETIME` (`30d`, `12h`): the `maxLifetime` policy for every tier: an expiry is required and capped, a key created without one gets it;
   * unset: off.
   */
  maxKeyLifetime: string | undefined;
  /**
   * `KEYWARD_IMPORT_PREFIXES` (`ba_,acme_`): the only prefixes of imported tokens `verify` looks up;
   * unset: every token that is neither Keyward's format nor a JWT is, so an imported key of any format serves without configuration.
   */
  importPrefixes: string[] | undefined;
  /** `KEYWARD_METRICS_TOKEN`: when set, `GET /metrics` needs `Authorization: Bearer <it>` (else 401). */
  metricsToken: string | undefined;
  /** `KEYWARD_KEY_RING` (base64 of 32 bytes): when set, `recoverable()` is listed with it, as `demo`. */
  keyRing: string | undefined;
  /**
   * `KEYWARD_TOKEN_SIGNING_KEY` (a private JWK or PEM, token-signing-key.ts): the key exchanged
   * tokens are signed with, the same on every instance; unset: one made per instance at start.
   */
  tokenSigningKeys: SigningKeysConfig | undefined;
  /**
   * `KEYWARD_STRIPE_SECRET_KEY` (with `KEYWARD_STRIPE_API_URL`, `KEYWARD_METER_WINDOW`): when set,
   * metering to Stripe is listed (metering/demo-metering.ts); unset: undefined, and it is not.
   */
  metering: DemoMeteringConfig | undefined;
  /** `HEADERS_TIMEOUT_MS`, default 10 s: how long a client may take to send its request headers. */
  headersTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS`, default 30 s: how long it may take to send the whole request. */
  requestTimeoutMs: number;
}

/** Slow clients are cut off after these (Node's own defaults are 60 s and 300 s). */
export const defaultHeadersTimeoutMs = 10_000;
export const defaultRequestTimeoutMs = 30_000;

/** The process environment on Node, Bun and Deno (Deno 2 provides `process` too). */
export function processEnvironment(): Environment {
  return (globalThis as { process?: { env: Environment } }).process?.env ?? {};
}

/**
 * Reads and checks the demo configuration. Throws a `TypeError` naming the variable at fault, so
 * a bad value stops the server at start with a message instead of misbehaving later.
 *
 * @example
 * const config = loadDemoConfig(); // from process.env
 * const config = loadDemoConfig({ PORT: "0", KEYWARD_TIER_LIMITS: "free=2" });
 */
export function loadDemoConfig(env: Environment = processEnvironment()): DemoConfig {
  // Used exactly as given (no trimming): the token script must sign with the very same bytes.
  const secret = env.KEYWARD_JWT_SECRET || undefined;
  if (secret !== undefined && new TextEncoder().encode(secret).length < 32) {
    throw new TypeError(
      "KEYWARD_JWT_SECRET must be at least 32 bytes for HS256; generate one with `openssl rand -base64 32`",
    );
  }
  const headersTimeoutMs = parseMilliseconds(
    "HEADERS_TIMEOUT_MS",
    env.HEADERS_TIMEOUT_MS,
    defaultHeadersTimeoutMs,
  );
  const requestTimeoutMs = parseMilliseconds(
    "REQUEST_TIMEOUT_MS",
    env.REQUEST_TIMEOUT_MS,
    defaultRequestTimeoutMs,
  );
  if (headersTimeoutMs > requestTimeoutMs) {
    // Node refuses it too: the headers are part of the request.
    throw new TypeError(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return {
    port: parsePort(env.PORT),
    host: nonEmpty(env.HOST) ?? "127.0.0.1",
    jwtSecret: secret ?? developmentJwtSecret,
    usingDevelopmentSecret: secret === undefined,
    developmentMode: nonEmpty(env.NODE_ENV) !== "production",
    tierLimits: parseTierLimits(env.KEYWARD_TIER_LIMITS),
    ownerLimits: parseOwnerLimits(env.KEYWARD_OWNER_LIMITS),
    quotas: parseQuotas(env.KEYWARD_QUOTAS),
    databaseUrl: optionalUrl("DATABASE_URL", env.DATABASE_URL),
    redisUrl: optionalUrl("REDIS_URL", env.REDIS_URL),
    secretScanningKeysUrl: httpUrl(
      "KEYWARD_SECRET_SCANNING_KEYS_URL",
      env.KEYWARD_SECRET_SCANNING_KEYS_URL,
    ),
    maxKeyLifetime: parseLifetime(env.KEYWARD_MAX_KEY_LIFETIME),
    importPrefixes: parseImportPrefixes(env.KEYWARD_IMPORT_PREFIXES),
    metricsToken: parseMetricsToken(env.KEYWARD_METRICS_TOKEN),
    keyRing: parseKeyRing(env.KEYWARD_KEY_RING),
    tokenSigningKeys: parseTokenSigningKey(env.KEYWARD_TOKEN_SIGNING_KEY),
    metering: parseMeteringEnv(env),
    headersTimeoutMs,
    requestTimeoutMs,
  };
}

/** `ba_,acme_`: prefixes as `imports({ prefixes })` takes them; unset or empty: none given. */
function parseImportPrefixes(value: string | undefined): string[] | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  const prefixes = text.split(",").map((prefix) => prefix.trim());
  for (const prefix of prefixes) {
    if (!/^[\x21-\x7e]{1,64}$/.test(prefix) || prefix.includes(".") || prefix.includes(",")) {
      throw new TypeError(
        `KEYWARD_IMPORT_PREFIXES is a comma-separated list of token prefixes, each 1–64 printable characters, no space and no "." (e.g. ba_,acme_; got ${JSON.stringify(text)})`,
      );
    }
  }
  return prefixes;
}

/** A bearer token: printable ASCII, no space (so that an `Authorization` header can carry it). */
function parseMetricsToken(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^[\x21-\x7e]{16,512}$/.test(value)) {
    throw new TypeError(
      "KEYWARD_METRICS_TOKEN must be 16–512 printable ASCII characters without spaces; generate one with `openssl rand -hex 32`",
    );
  }
  return value;
}

/** The base64 of exactly 32 bytes (`openssl rand -base64 32`), checked here so a bad one stops the start. */
function parseKeyRing(value: string | undefined): string | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  let length = -1;
  try {
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(text)) length = atob(text).length;
  } catch {
    length = -1;
  }
  if (length !== 32) {
    throw new TypeError(
      "KEYWARD_KEY_RING must be the base64 of 32 bytes; generate one with `openssl rand -base64 32`",
    );
  }
  return text;
}

/** A whole number and a unit: `30d`, `12h`, `90m`, `3600s`; at least a second. */
function parseLifetime(value: string | undefined): string | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  const match = /^(\d+)(s|m|h|d)$/.exec(text);
  if (!match || Number(match[1]) < 1) {
    throw new TypeError(
      `KEYWARD_MAX_KEY_LIFETIME must be a whole number and a unit, s, m, h or d, at least 1 (e.g. 30d; got "${text}")`,
    );
  }
  return text;
}

function parsePort(value: string | undefined): number {
  const text = nonEmpty(value);
  if (text === undefined) return 3000;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new TypeError(`PORT must be a whole number from 0 to 65535 (got "${text}")`);
  }
  return port;
}

function parseMilliseconds(name: string, value: string | undefined, fallback: number): number {
  const text = nonEmpty(value);
  if (text === undefined) return fallback;
  const milliseconds = Number(text);
  // 0 would switch the timeout off in Node: a demo that can be held open forever is what this prevents.
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(milliseconds) || milliseconds < 1) {
    throw new TypeError(
      `${name} must be a whole number of milliseconds, at least 1 (got "${text}")`,
    );
  }
  return milliseconds;
}

function optionalUrl(
  name: "DATABASE_URL" | "REDIS_URL",
  value: string | undefined,
): string | undefined {
  const text = nonEmpty(value);
  return text === undefined ? undefined : checkStoreUrl(name, text);
}

function httpUrl(name: string, value: string | undefined): string | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  let protocol = "";
  try {
    protocol = new URL(text).protocol;
  } catch {}
  if (protocol !== "http:" && protocol !== "https:") {
    throw new TypeError(`${name} must be an http(s) URL (got "${text}")`);
  }
  return text;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
