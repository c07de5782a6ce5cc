/**
 * The configuration of `secretScanning(config)`: GitHub's secret-scanning partner endpoint,
 * `POST {basePath}/secret-scanning` (docs/leaked-keys.md), served when the feature is listed.
 */

/** What a matched key gets: revoked at once (the default), or only reported as leaked. */
export type LeakAction = "revoke" | "report";

export interface SecretScanningConfig {
  /**
   * Where the scanner publishes the keys it signs reports with (JSON `{ public_keys: [{
   * key_identifier, key, is_current }] }`). Default GitHub's,
   * `https://api.github.com/meta/public_keys/secret_scanning`.
   */
  keysUrl?: string;
  /** `revoke` (default): a leaked key is revoked at once. `report`: only `key.leaked` is written. */
  action?: LeakAction;
  /** Largest report accepted, in bytes; default 1 MiB (GitHub batches many matches in one). */
  maxBodyBytes?: number;
  /**
   * Reports whose bodies are read at once; default 8. Anyone can open the endpoint, and its
   * signature can only be checked once the body is in, so this bounds the memory anonymous clients
   * can hold to `maxConcurrentReports × maxBodyBytes`. Beyond it: 503 `reports_busy` with
   * `Retry-After: 1`, and the scanner retries.
   */
  maxConcurrentReports?: number;
  /** How long fetched keys are used before they are fetched again, in ms; default one hour. */
  keysCacheMs?: number;
  /** How long a fetch of the keys may take before the report is answered 503, in ms; default 5 s. */
  keysTimeoutMs?: number;
  /** The `fetch` used to get the keys; default the global one (a proxy-aware one, say). */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
}

export const defaultScannerKeysUrl = "https://api.github.com/meta/public_keys/secret_scanning";
export const defaultMaxReportBytes = 1024 * 1024;
export const defaultMaxConcurrentReports = 8;
export const defaultKeysCacheMs = 60 * 60 * 1000;
export const defaultKeysTimeoutMs = 5_000;

/** The configuration with every default filled in. */
export interface ResolvedSecretScanning {
  keysUrl: string;
  action: LeakAction;
  maxBodyBytes: number;
  maxConcurrentReports: number;
  keysCacheMs: number;
  keysTimeoutMs: number;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
}

/** Throws a `TypeError` naming the field for anything `secretScanning(config)` should not take. */
export function checkSecretScanningConfig(option: unknown): void {
  if (typeof option !== "object" || option === null || Array.isArray(option)) {
    throw new TypeError(
      'Keyward: `secretScanning(config)` takes an object like { action: "revoke" } (every field optional)',
    );
  }
  const config = option as SecretScanningConfig;
  if (config.keysUrl !== undefined && !isHttpUrl(config.keysUrl)) {
    throw new TypeError(
      `Keyward: \`secretScanning.keysUrl\` must be an http(s) URL, got ${JSON.stringify(config.keysUrl)}`,
    );
  }
  if (config.action !== undefined && config.action !== "revoke" && config.action !== "report") {
    throw new TypeError(
      `Keyward: \`secretScanning.action\` must be "revoke" or "report", got ${JSON.stringify(config.action)}`,
    );
  }
  for (const name of [
    "maxBodyBytes",
    "maxConcurrentReports",
    "keysCacheMs",
    "keysTimeoutMs",
  ] as const) {
    const value = config[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new TypeError(
        `Keyward: \`secretScanning.${name}\` must be a positive whole number, got ${JSON.stringify(value)}`,
      );
    }
  }
  if (config.fetch !== undefined && typeof config.fetch !== "function") {
    throw new TypeError(
      `Keyward: \`secretScanning.fetch\` must be a function like the global fetch, got ${typeof config.fetch}`,
    );
  }
}

export function resolveSecretScanning(option: SecretScanningConfig): ResolvedSecretScanning {
  return {
    keysUrl: option.keysUrl ?? defaultScannerKeysUrl,
    action: option.action ?? "revoke",
    maxBodyBytes: option.maxBodyBytes ?? defaultMaxReportBytes,
    maxConcurrentReports: option.maxConcurrentReports ?? defaultMaxConcurrentReports,
    keysCacheMs: option.keysCacheMs ?? defaultKeysCacheMs,
    keysTimeoutMs: option.keysTimeoutMs ?? defaultKeysTimeoutMs,
    // Looked up on each call, not captured: a test or an instrumentation may replace it later.
    fetch: option.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  };
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const { protocol } = new URL(value);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}
