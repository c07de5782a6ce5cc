/** The shapes key management's operations and the endpoints share. */
import type { Principal } from "../auth/principal.js";
import type { UsageLimits } from "../limits/usage-limits.js";
import type { KeyUsage } from "../storage/usage-store.js";
import type { KeyRecord } from "./key-record.js";

/** One page of an owner's keys, and where the next one starts (null after the last). */
export interface KeyPage {
  data: KeyRecord[];
  nextCursor: string | null;
}

export interface ListPageOptions {
  /** Keys per page, 1 to 1,000. */
  limit: number;
  /** `nextCursor` of the previous page; omitted for the first. */
  cursor?: string | null;
}

export interface RevokedKey {
  id: string;
  status: "revoked";
  revokedAt: string;
}

/** A key's usage as the API shows it: `KeyUsage` with `lastUsedAt` as an ISO 8601 string. */
export type UsageReport = Omit<KeyUsage, "lastUsedAt" | "useFields"> & {
  lastUsedAt: string | null;
  /**
   * The fields the key's latest use wrote (`KeyField.fromUse`) that the usage report shows, each
   * present only when one was recorded.
   */
  [featureField: string]: unknown;
} & UsageLimits;

/**
 * A record as a key-management endpoint answers it, with the `version` of the stored record it
 * shows: what the HTTP layer's `ETag` names and `If-Match` is compared with.
 */
export interface Versioned<T> {
  record: T;
  version: number;
}

/**
 * What a change requires of the record before it applies (HTTP `If-Match`): that its version is one
 * of these. The change is then a single compare-and-set against that version, never retried: a
 * concurrent change is the caller's to look at (412). Omitted: any version, and a change that lost
 * a race is re-checked against the new record and tried again.
 */
export interface VersionPrecondition {
  versions: readonly number[];
}

/** The signed-in user behind a key-management request. */
export type Caller = Extract<Principal, { kind: "user" }>;
