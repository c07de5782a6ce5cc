/**
 * A bounded map whose entries also expire: least recently used entries go first once it is full.
 * A `Map` keeps insertion order, so re-inserting an entry on every read makes the first key the
 * least recently used one, and every operation is O(1).
 */
export interface ExpiringLru<V> {
  readonly size: number;
  /** The live value, or undefined when absent or expired (an expired entry is dropped). */
  get(key: string, now: number): V | undefined;
  set(key: string, value: V, expiresAt: number): void;
  delete(key: string): void;
  clear(): void;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * @param onDrop called for every entry that leaves other than by `clear`: evicted, expired,
 *   replaced or deleted. Lets an owner keep a secondary index in step.
 */
export function expiringLru<V>(
  maxEntries: number,
  onDrop?: (key: string, value: V) => void,
): ExpiringLru<V> {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new TypeError(`Invalid cache size ${String(maxEntries)}: it must be a whole number ≥ 1`);
  }
  const entries = new Map<string, Entry<V>>();

  const drop = (key: string, entry: Entry<V>) => {
    entries.delete(key);
    onDrop?.(key, entry.value);
  };

  return {
    get size() {
      return entries.size;
    },

    get(key, now) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now) {
        drop(key, entry);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },

    set(key, value, expiresAt) {
      const previous = entries.get(key);
      if (previous !== undefined) drop(key, previous);
      entries.set(key, { value, expiresAt });
      if (entries.size > maxEntries) {
        const [oldestKey, oldest] = entries.entries().next().value!;
        drop(oldestKey, oldest);
      }
    },

    delete(key) {
      const entry = entries.get(key);
      if (entry !== undefined) drop(key, entry);
    },

    clear() {
      entries.clear();
    },
  };
}
