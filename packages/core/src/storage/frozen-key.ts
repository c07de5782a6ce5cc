import type { StoredKey } from "./key-store.js";

/**
 * A record that no caller can change: frozen with its scopes, its metadata and its feature fields, all the way down.
 * Records handed out by the memory store and the verification cache are shared between callers
 * (every verification of a key gets the same one), so they must be immutable. Already-frozen
 * records come back as they are.
 */
export function frozenKey(key: StoredKey): StoredKey {
  if (
    Object.isFrozen(key) &&
    Object.isFrozen(key.scopes) &&
    isDeepFrozen(key.metadata) &&
    (key.fields === undefined || Object.isFrozen(key.fields))
  ) {
    return key;
  }
  return Object.freeze({
    ...key,
    scopes: Object.freeze([...key.scopes]),
    metadata: key.metadata === null ? null : deepFreeze(structuredClone(key.metadata)),
    // Only when present: a record without feature fields keeps exactly the fields it had. Frozen
    // whole, all the way down, so its top level tells.
    ...(key.fields === undefined ? {} : { fields: deepFreeze(structuredClone(key.fields)) }),
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
