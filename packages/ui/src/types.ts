/** The JSON the six key-management endpoints answer (docs/http-api.md), as the component reads it. */

export type KeyStatus = "active" | "expired" | "revoked" | (string & {});

/** One key as `GET {basePath}` lists it: never the secret. */
export interface KeyRecord {
  id: string;
  name: string;
  scopes: string[];
  tier: string;
  status: KeyStatus;
  /** `sk_live_…Xy7Q`: enough for a person to tell keys apart, useless to an attacker. */
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Until when the secret a graceful rotation replaced still works; only while it does. */
  previousSecretExpiresAt?: string;
}

/** What create and rotate answer: the record plus the full secret, this once. */
export interface KeyWithSecret extends KeyRecord {
  key: string;
}

/** One entry of `GET {basePath}/scopes`. */
export interface ScopeDescription {
  name: string;
  description: string;
}

/** `GET {basePath}/{key_id}/usage`. */
export interface UsageReport {
  keyId: string;
  totalRequests: number;
  lastUsedAt: string | null;
  endpoints: { method: string; route: string; count: number }[];
  daily: { date: string; count: number }[];
}

/** `DELETE {basePath}/{key_id}`. */
export interface Revocation {
  id: string;
  status: "revoked";
  revokedAt: string;
}
