import type { StoredKey } from "@keyward/core";

let counter = 0;

/** An id no other test (or earlier run against the same database) has used. */
export function uniqueId(label: string): string {
  counter += 1;
  const random = crypto.getRandomValues(new Uint32Array(2));
  return `${label}_${Date.now().toString(36)}${counter.toString(36)}${random[0]!.toString(36)}${random[1]!.toString(36)}`;
}

/** A 64-hex-character stand-in for a secret hash. */
export function fakeHash(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function storedKey(overrides: Partial<StoredKey> = {}): StoredKey {
  const ownerId = overrides.ownerId ?? uniqueId("user");
  return {
    id: uniqueId("key"),
    ownerType: "user",
    ownerId,
    createdBy: ownerId,
    name: "conformance key",
    scopes: ["profile:read", "profile:write"],
    tier: "free",
    secretHash: fakeHash(),
    hint: "sk_live_…abcd",
    createdAt: Date.parse("2026-01-01T00:00:00.000Z"),
    expiresAt: null,
    revokedAt: null,
    rotatedAt: null,
    previousSecretHash: null,
    previousSecretExpiresAt: null,
    version: 1,
    ownerTier: null,
    disabledAt: null,
    metadata: null,
    ...overrides,
  };
}

/** Every string reachable in `value`, with byte arrays decoded as UTF-8 and as hex. */
export function collectStrings(
  value: unknown,
  into: string[] = [],
  seen = new Set<unknown>(),
): string[] {
  if (typeof value === "string") {
    into.push(value);
  } else if (value instanceof Uint8Array) {
    into.push(new TextDecoder().decode(value));
    into.push(Array.from(value, (byte) => byte.toString(16).padStart(2, "0")).join(""));
  } else if (value !== null && typeof value === "object" && !seen.has(value)) {
    seen.add(value);
    if (value instanceof Map) {
      for (const [k, v] of value) {
        collectStrings(k, into, seen);
        collectStrings(v, into, seen);
      }
    } else if (value instanceof Set || Array.isArray(value)) {
      for (const item of value) collectStrings(item, into, seen);
    } else {
      for (const [k, v] of Object.entries(value)) {
        into.push(k);
        collectStrings(v, into, seen);
      }
    }
  } else if (typeof value === "number" || typeof value === "bigint") {
    into.push(String(value));
  }
  return into;
}
