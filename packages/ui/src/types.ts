/** The JSON the six key-management endpoints answer (docs/http-api.md), as the component reads it. */

import type {
  KeyRecord as CoreKeyRecord,
  KeyWithSecret as CoreKeyWithSecret,
  Owner,
} from "@keyward/core";

// The key as the endpoints answer it is `@keyward/core`'s own type (imported for types only, so
// nothing of the core is bundled): the component reads exactly what the server writes.
export type { KeyStatus } from "@keyward/core";

/**
 * The features' key fields the component shows and edits, as their features declare them on the
 * record (`lifecycle()`'s `allowedIps`, `permissions()`'s `resources` and `lastUsedAddress`); the
 * core's record types them only as unknown feature fields.
 */
interface ShownKeyFields {
  allowedIps?: string[];
  resources?: Record<string, string[]>;
  /** The client address of the key's last use, where the server records one. */
  lastUsedAddress?: string;
}

export type KeyRecord = CoreKeyRecord & ShownKeyFields;
export type KeyWithSecret = CoreKeyWithSecret & ShownKeyFields;

/** Whose key it is: on an organization's key only (a user's own keys carry no `owner`). */
export type KeyOwner = Owner;

/** One page of `GET {basePath}?limit=`: `nextCursor` fetches the next, null after the last. */
export interface KeyPage {
  data: KeyRecord[];
  nextCursor: string | null;
}

/** One entry of `GET {basePath}/scopes`. */
export interface ScopeDescription {
  name: string;
  description: string;
}

/** A quota's, a credit refill's or a budget's UTC period (a week starts on Monday). */
export type CalendarPeriod = "day" | "week" | "month";

/** `GET {basePath}/{key_id}/usage`. */
export interface UsageReport {
  keyId: string;
  totalRequests: number;
  lastUsedAt: string | null;
  /** The client address of the key's last use, where the server records one. */
  lastUsedAddress?: string;
  endpoints: { method: string; route: string; count: number }[];
  daily: { date: string; count: number }[];
  /** The owner's quota as this key's requests count against it; only when there is one. */
  quota?: { limit: number; remaining: number; period: CalendarPeriod; resetsAt: string };
  /** The key's credits; only when it has some. `refillsAt` is null without a refill. */
  credits?: {
    remaining: number;
    refill: { amount: number; period: CalendarPeriod } | null;
    refillsAt: string | null;
  };
  /**
   * Where the key's budgets stand this period (`budgets()` on the server); only when it has one.
   * `held` is what unsettled holds take now; `left` = `limit` − `spent` − `held`.
   */
  budgets?: {
    held: number;
    key: BudgetStanding | null;
    own: BudgetStanding | null;
    owner: BudgetStanding | null;
  };
}

/** One budget of a usage report. */
export interface BudgetStanding {
  limit: number;
  period: CalendarPeriod;
  held: number;
  spent: number;
  left: number;
  resetsAt: string;
}

/** One entry of a key's audit log, `GET {basePath}/{key_id}/events` (docs/events.md). */
export interface KeyEvent {
  id: string;
  type: string;
  occurredAt: string;
  keyId: string;
  /** Who made the change: a user (`id`), the operator's code, a secret scanner, or Keyward. */
  actor: { type: string; id?: string };
  data: Record<string, unknown>;
}

export interface KeyEventPage {
  data: KeyEvent[];
  nextCursor: string | null;
}

/**
 * An organization the signed-in person belongs to, as the host knows it (Keyward keeps no
 * memberships): `tier` is the organization's plan, `name` what the switcher shows (default `id`).
 */
export interface OrganizationMembership {
  id: string;
  name?: string;
  role?: string;
  tier?: string;
}

/** `DELETE {basePath}/{key_id}`. */
export interface Revocation {
  id: string;
  status: "revoked";
  revokedAt: string;
}
