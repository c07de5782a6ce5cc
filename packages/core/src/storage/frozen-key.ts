import type { StoredKey } from "./key-store.js";

/**
 * A record that no caller can change: frozen with its scopes and its metadata, all the way down.
 * Records handed out by the memory store and the verification cache are shared between callers
 * (every verification of a key gets the same one), so they must be immutable. Already-frozen
 * records come back as they are.
 */
export function frozenKey(key: StoredKey): StoredKey {
  if (
    Object.isFrozen(key) &&
    Object.isFrozen(key.scopes) &&
    isDeepFrozen(key.metadata) &&
    (key.allowedIps == null || Object.isFrozen(key.allowedIps)) &&
    (key.resources == null || Object.isFrozen(key.resources))
  ) {
    return key;
  }
  return Object.freeze({
    ...key,
    scopes: Object.freeze([...key.scopes]),
    metadata: key.metadata === null ? null : deepFreeze(structuredClone(key.metadata)),
    // Only when present: a record without an allowlist keeps exactly the fields it had.
    ...(key.allowedIps == null ? {} : { allowedIps: Object.freeze([...key.allowedIps]) }),
    ...(key.resources == null ? {} : { resources: deepFreeze(structuredClone(key.resources)) }),
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Metadata is only ever frozen whole (by `deepFreeze`), so its top level tells. */
function isDeepFrozen(metadata: StoredKey["metadata"]): boolean {
  return metadata === null || Object.isFrozen(metadata);
}
