/**
 * One API key's request as `verify`'s steps hand it on, from the moment the key is found live to
 * its decision: the step state, one object a request, instead of the same values passed to every
 * step one by one.
 */
import type { StoredKey } from "../storage/key-store.js";
import type { ChargeRequest } from "./charge-steps.js";
import type { VerifyOptions } from "./principal.js";

export interface KeyAttempt extends ChargeRequest {
  readonly key: StoredKey;
  readonly options: VerifyOptions;
  /** The tier the key runs at: its own, capped at its owner's current one. */
  readonly tier: string;
  /** When the request is decided, epoch ms: one reading of the clock for every step. */
  readonly now: number;
}
