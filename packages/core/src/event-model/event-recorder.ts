import type { AppendedEvent, EventLog } from "../storage/event-log.js";
import type { StoredEvent } from "./event.js";
import type { KeyEventBuilder } from "./key-events.js";

/**
 * The events written with key changes, as the kernel calls them: its extension point for the
 * `events()` feature. Without it, changes are written with no event.
 */
export interface EventRecorder {
  /** Builds each change's events, written by the key store in the change's own atomic step. */
  build: KeyEventBuilder;
  /** The key store's event log. */
  log: EventLog;
  /** Told about every change's events once the change is committed. */
  committed(events: readonly StoredEvent[]): void;
  /**
   * Writes events that go with no key change (time- and usage-based ones, leak reports), each
   * once-key at most once across instances. Resolves with those written.
   */
  append(entries: readonly AppendedEvent[]): Promise<StoredEvent[]>;
  /** Starts background work (pruning, scans) if it is not running; called on first use. */
  start(): void;
  /** Stops it. */
  close(): Promise<void>;
}
