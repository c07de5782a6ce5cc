/**
 * `verify`'s phase "check": after a key is found and live (not revoked, expired or disabled),
 * before any limit is charged, the checks run in order and the first refusal wins. The kernel's own
 * come first (`kernel-checks.ts`: the route's environment; an allowlist or resources no listed
 * feature can check), then those the listed features add (lifecycle's IP allowlist, permissions'
 * resources). A check is synchronous and asks no store: it decides from the record and the request
 * alone.
 */
import type { KeywardErrorCode } from "../errors/codes.js";
import type { StoredKey } from "../storage/key-store.js";
import type { VerifyOptions, VerifyResult } from "./principal.js";

export interface KeyCheck {
  /** What it checks, for a reader of the list: `"environment"`, `"allowed-ips"`. */
  readonly name: string;
  /** A refusal (made with `kit.refuse`), or undefined to let the key on. */
  check(key: StoredKey, options: VerifyOptions, kit: KeyCheckKit): VerifyResult | undefined;
}

/** What a check may use: the refusal `verify` answers with, and one-time warnings. */
export interface KeyCheckKit {
  refuse(code: KeywardErrorCode, detail: string): VerifyResult;
  /** Logs `message()` the first time `id` is warned about, never again. */
  warnOnce(id: string, message: () => string): void;
}

/** Runs `checks` in order: the first refusal, or undefined when every one lets the key on. */
export function firstRefusal(
  checks: readonly KeyCheck[],
  key: StoredKey,
  options: VerifyOptions,
  kit: KeyCheckKit,
): VerifyResult | undefined {
  for (const step of checks) {
    const refused = step.check(key, options, kit);
    if (refused !== undefined) return refused;
  }
  return undefined;
}
