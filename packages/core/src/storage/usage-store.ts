/**
 * One batch entry of usage: `count` requests by one key to one route on one UTC day.
 * `route` is the route template (`GET /profiles/:slug` is method `GET`, route `/profiles/:slug`),
 * never the raw path, so the number of rows stays bounded.
 */
export interface UsageIncrement {
  keyId: string;
  method: string;
  route: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  count: number;
  /** Epoch ms of the latest request in this increment. */
  lastUsedAt: number;
  /**
   * The fields the latest request in this increment that wrote any wrote (`KeyField.fromUse`), as
   * the kernel encodes them (`keys/use-fields.ts`: an ASCII JSON text); absent when none wrote
   * any, and then the stored ones are left as they are. Stores keep the text without reading it.
   */
  useFields?: string;
  /**
   * When the request of `useFields` was made, epoch ms; absent: at `lastUsedAt`. Earlier than
   * `lastUsedAt` only when a later request of the increment wrote none.
   */
  useFieldsAt?: number;
}

/** A key's last use, for listings: when, and the fields of its latest use that wrote any. */
export interface LastUse {
  /** Epoch ms of the latest request. */
  at: number;
  /** The `useFields` of the latest request that had some; absent when none was recorded. */
  useFields?: string;
}

export interface KeyUsage {
  keyId: string;
  totalRequests: number;
  lastUsedAt: number | null;
  /** The `useFields` of the key's latest request that had some; absent when none was recorded. */
  useFields?: string;
  /** Sorted by count descending, then method and route in code-unit order. */
  endpoints: { method: string; route: string; count: number }[];
  /** Sorted by date ascending. */
  daily: { date: string; count: number }[];
}

/**
 * Persistence for usage counters.
 *
 * Contract:
 * - `record` adds counts. Increments commute: any order, any split into batches, and concurrent
 *   calls give the same totals. `lastUsedAt` keeps the maximum seen.
 * - A key's `useFields` are those of its latest increment with some (by `useFieldsAt`, else
 *   `lastUsedAt`; of two at the same millisecond, the greater text in code-unit order:
 *   `isLaterUse`), whatever the order, split or concurrency of the writes; an increment without
 *   them leaves them as they are. Only the one text is kept per key, never a history, and it is
 *   kept as given, never read.
 * - Usage is keyed by key id, so it survives rotation.
 * - `read` of a key with no usage gives zero totals and `lastUsedAt: null`, never `null`.
 * - `prune(beforeDay)` (optional; needed for `usage.retainDays`) removes the daily detail of every
 *   UTC day before `beforeDay` and folds it into per-key totals, so `totalRequests`, the
 *   per-endpoint counts and `lastUsedAt` never shrink, and the `useFields` stay: only `daily` loses
 *   the pruned days. It works in short batches (never one long statement or script), is idempotent
 *   and safe to run from several instances at once, and never loses a count recorded concurrently.
 */
export interface UsageStore {
  record(increments: readonly UsageIncrement[]): Promise<void>;
  read(keyId: string): Promise<KeyUsage>;
  /**
   * The last use per key id, for listings: its time, and its `useFields` where some were recorded;
   * ids without usage are absent from the map.
   */
  lastUsed(keyIds: readonly string[]): Promise<Map<string, LastUse>>;
  /**
   * Folds the daily counts of days before `beforeDay` (`YYYY-MM-DD`, UTC) into the keys' totals
   * and removes them; resolves with how many key-days (a key's counts on one day) were removed.
   */
  prune?(beforeDay: string): Promise<number>;
}
