/**
 * What a verification looked like, for whoever watches them (`@keyward/otel`'s metrics and spans):
 * a feature lists `observeVerify(observer)` at the kernel's `verify` phase `around`, which wraps
 * `verify` so each one hears every verification, whichever way it came in (`keyward.verify`,
 * `authenticate`, an adapter's guard, the endpoints' own sessions).
 *
 * With no observer listed nothing is wrapped: `verify` is the function `createVerify` made, with no
 * clock read and nothing allocated for observers (the hot path is about a microsecond).
 */
import type { VerifyResult } from "../auth/principal.js";
import type { KeywardErrorCode } from "../errors/codes.js";

/** The limit that refused a 429: one of the key's layers, or the unknown-key budget per address. */
export type RefusedLayer = "key" | "owner" | "quota" | "credits" | "failed-lookups";

/** One verification, decided. Never the secret, its hash or the token. */
export interface VerifyObservation {
  /** `"ok"`, or the error code it was refused with (`invalid_api_key`, `quota_exceeded`…). */
  readonly outcome: "ok" | KeywardErrorCode;
  /** The HTTP status the refusal answers with; 200 when admitted. */
  readonly status: number;
  /** Who was admitted: an API key or a signed-in user; undefined on a refusal. */
  readonly principalKind: "key" | "user" | undefined;
  /** The tier it ran at, when admitted. */
  readonly tier: string | undefined;
  /** On a 429, the limit that refused it. */
  readonly layer: RefusedLayer | undefined;
  /** The admitted key's id (an observer decides whether to use it: it is high-cardinality). */
  readonly keyId: string | undefined;
  /** From the call to the decision, in seconds (real time, not the configured clock). */
  readonly durationSeconds: number;
}

/**
 * Watches verifications. `Scope` is the observer's own per-verification state (a trace span): what
 * `start` returns is handed back to `within` and `verified` for the same verification.
 *
 * An observer must not throw; if `start` or `verified` does, the failure is reported once through the
 * instance's logger and the verification goes on unchanged.
 */
export interface VerifyObserver<Scope = unknown> {
  /** Called as a verification begins, before any of its work. */
  start?(): Scope;
  /**
   * Runs the verification inside the observer's scope, e.g. with its span as the current one, so
   * that the store calls the verification makes are that span's children. Must call `verify` once,
   * at once, and return what it returns.
   */
  within?<T>(scope: Scope, verify: () => T): T;
  /** Called once the verification is decided, with what it decided. */
  verified(observation: VerifyObservation, scope: Scope): void;
}

/** What a refusal's error says about the limit behind it, for the codes that come from limits. */
export function refusedLayerOf(
  result: VerifyResult,
  isOwnerRefusal: (error: object) => boolean,
): RefusedLayer | undefined {
  if (result.ok) return undefined;
  switch (result.error.code) {
    case "rate_limited":
      return isOwnerRefusal(result.error) ? "owner" : "key";
    case "quota_exceeded":
      return "quota";
    case "credits_exhausted":
      return "credits";
    case "failed_lookups_limited":
      return "failed-lookups";
    default:
      return undefined;
  }
}
