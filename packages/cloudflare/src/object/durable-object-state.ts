/**
 * The parts of a Durable Object's state this package uses, typed here so that it needs no
 * `@cloudflare/workers-types` (which would change the global types of every host that imports it).
 * They are the runtime's own: SQLite-backed storage (`new_sqlite_classes`) and its alarm.
 */

export type SqlValue = string | number | null | ArrayBuffer;

export interface SqlCursor<T> extends Iterable<T> {
  toArray(): T[];
  one(): T;
  readonly rowsWritten: number;
}

export interface SqlStorage {
  exec<T extends Record<string, SqlValue> = Record<string, SqlValue>>(
    query: string,
    ...bindings: SqlValue[]
  ): SqlCursor<T>;
}

export interface DurableObjectStorage {
  readonly sql: SqlStorage;
  transactionSync<T>(closure: () => T): T;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
}

export interface DurableObjectState {
  readonly storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}
