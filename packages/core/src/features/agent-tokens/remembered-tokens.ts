/**
 * What the token resolver remembers between requests, bounded: entries expire at their own time,
 * and past `maxEntries` the oldest goes first. A read moves nothing (no recency order): these are
 * read on every request and a token lives 15 minutes at most, so oldest-first is as good as
 * least-recently-used and costs one map lookup instead of three.
 */
export interface Remembered<V> {
  get(key: string, now: number): V | undefined;
  set(key: string, value: V, expiresAt: number): void;
}

export function remembered<V>(maxEntries: number): Remembered<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key, now) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value, expiresAt) {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt });
    },
  };
}
