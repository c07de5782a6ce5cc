/**
 * The keys a secret scanner signs its reports with, fetched from where it publishes them (GitHub:
 * `https://api.github.com/meta/public_keys/secret_scanning`), imported with WebCrypto and cached.
 *
 * - Cached for `keysCacheMs`; when a refresh fails, the keys already held keep working (a GitHub
 *   outage must not stop leak reports signed with a key we know).
 * - An identifier not in the cache triggers one refetch, so a key GitHub has just rotated in is
 *   found at once; but at most one such refetch per `minRefetchIntervalMs`, so made-up identifiers
 *   cannot turn this endpoint into a fetch amplifier against GitHub.
 * - Concurrent requests share one fetch, and no fetch runs past `keysTimeoutMs`.
 */
import { KeywardError } from "../../errors/keyward-error.js";
import { withDeadline } from "../../faults/deadline.js";
import type { ResolvedSecretScanning } from "./secret-scanning-config.js";

/** At most one refetch for an unknown identifier per second. */
export const minRefetchIntervalMs = 1_000;

export interface ScannerPublicKeys {
  /**
   * The key with this identifier: from the cache, or fetched (once, rate-limited) when the cache
   * is stale or does not hold it. `null` when the scanner publishes no such key. Throws a
   * `KeywardError` (503) when the keys cannot be fetched and none is held for this identifier.
   */
  find(identifier: string): Promise<CryptoKey | null>;
}

interface Fetched {
  keys: ReadonlyMap<string, CryptoKey>;
  at: number;
}

export function scannerPublicKeys(
  config: Pick<ResolvedSecretScanning, "keysUrl" | "keysCacheMs" | "keysTimeoutMs" | "fetch">,
  options: { now(): number; reportFailure(message: string, cause: unknown): void },
): ScannerPublicKeys {
  let held: Fetched | undefined;
  let inFlight: Promise<Fetched> | undefined;
  let lastAttempt = Number.NEGATIVE_INFINITY;

  const refresh = (): Promise<Fetched> => {
    inFlight ??= (async () => {
      lastAttempt = options.now();
      try {
        const keys = await fetchKeys(config, options.reportFailure);
        held = { keys, at: options.now() };
        return held;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  let lastError: unknown;

  const unavailable = (cause: unknown) =>
    new KeywardError(
      "scanner_keys_unavailable",
      "The secret scanner's public keys could not be fetched; try again later",
      {
        cause: new Error(
          `fetching the secret scanner's public keys from ${config.keysUrl} failed`,
          { cause },
        ),
      },
    );

  return {
    async find(identifier) {
      const now = options.now();
      const fresh = held !== undefined && now - held.at < config.keysCacheMs;
      const cached = held?.keys.get(identifier);
      if (fresh && cached) return cached;
      // Stale, or an identifier we do not know: ask again, unless we just did. Made-up
      // identifiers, or a flood while the key server is down, cost at most one fetch a second.
      if (!inFlight && now - lastAttempt < minRefetchIntervalMs) {
        if (cached) return cached;
        if (held) return null;
        throw unavailable(lastError);
      }
      try {
        return (await refresh()).keys.get(identifier) ?? null;
      } catch (cause) {
        lastError = cause;
        // Keys we already hold still verify: GitHub being down must not stop its own reports.
        if (cached) {
          options.reportFailure(
            "refreshing the secret scanner's public keys failed; using the cached ones",
            cause,
          );
          return cached;
        }
        // Reported once, by the handler, as the cause of the 503.
        throw unavailable(cause);
      }
    },
  };
}

async function fetchKeys(
  config: Pick<ResolvedSecretScanning, "keysUrl" | "keysTimeoutMs" | "fetch">,
  reportFailure: (message: string, cause: unknown) => void,
): Promise<Map<string, CryptoKey>> {
  const abort = new AbortController();
  const expired = () => {
    abort.abort();
    return new Error(`no answer from ${config.keysUrl} within ${config.keysTimeoutMs} ms`);
  };
  const body = await withDeadline(
    (async () => {
      const response = await config.fetch(config.keysUrl, {
        headers: { accept: "application/json" },
        signal: abort.signal,
      });
      if (!response.ok) {
        throw new Error(`${config.keysUrl} answered ${response.status}`);
      }
      return (await response.json()) as unknown;
    })(),
    config.keysTimeoutMs,
    expired,
  );
  const listed = (body as { public_keys?: unknown } | null)?.public_keys;
  if (!Array.isArray(listed)) {
    throw new Error(`${config.keysUrl} did not answer { "public_keys": [...] }`);
  }
  const keys = new Map<string, CryptoKey>();
  for (const entry of listed) {
    const { key_identifier: identifier, key: pem } = (entry ?? {}) as Record<string, unknown>;
    if (typeof identifier !== "string" || typeof pem !== "string") continue;
    try {
      keys.set(identifier, await importPem(pem));
    } catch (cause) {
      // One key we cannot read (another curve, say) must not hide the others.
      reportFailure(`the secret scanner's public key ${identifier} could not be imported`, cause);
    }
  }
  return keys;
}

/** A PEM `PUBLIC KEY` (SubjectPublicKeyInfo) of an ECDSA P-256 key, for verifying only. */
export async function importPem(pem: string): Promise<CryptoKey> {
  const base64 = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  const spki = decodeBase64(base64);
  if (!spki) throw new Error("not a base64 PEM public key");
  return crypto.subtle.importKey("spki", spki, { name: "ECDSA", namedCurve: "P-256" }, false, [
    "verify",
  ]);
}

/** Standard base64 (with padding optional) to bytes, or null when it is not base64. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}
