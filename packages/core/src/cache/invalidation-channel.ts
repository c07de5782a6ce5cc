/**
 * The contract between a verification cache and whatever carries "this key changed" between the
 * instances of a deployment: Postgres LISTEN/NOTIFY, Redis pub/sub, or the in-process channel below.
 */

import type { ReportsStoreFailures } from "../logging/store-failure-reporter.js";

/** A key whose cached record must go, sent after its rotation or revocation has been committed. */
export interface KeyInvalidation {
  keyId: string;
  /** The hash the record was cached under before the change: for a rotation, the old secret's. */
  secretHash: string;
}

/**
 * - `"live"`: events published from now on reach the listener. Events published before may have
 *   been missed, so whatever was cached until now must be dropped.
 * - `"interrupted"`: events may be lost from now on. Drop everything and cache nothing until
 *   `"live"` comes again.
 */
export type ChannelState = "live" | "interrupted";

export type InvalidationListener = (event: KeyInvalidation) => void;

/**
 * Carries invalidations between instances.
 *
 * Contract every implementation keeps:
 * - `publish` resolves once the transport has accepted the event (for Postgres, once the NOTIFY has
 *   been committed); it rejects when it could not send. Delivery is at most once, to every
 *   subscriber of every instance, the publisher's own included.
 * - `subscribe` resolves once delivery to `listener` is live: any event published after that
 *   reaches it, unless the channel reports `"interrupted"` first. A channel that cannot connect
 *   yet keeps trying and resolves when it has; it rejects only when it has been closed.
 * - A channel never loses events silently. Whenever it may have (a dropped connection, a missed
 *   heartbeat), it calls `onReset("interrupted")`, and `onReset("live")` once it is listening again.
 *   Caches rely on this to stay correct: a missed revocation must not leave a key usable.
 * - Listeners are called synchronously from the channel's own event handling and must not throw.
 * - The function `subscribe` resolves to unsubscribes: once it has resolved, the listener and
 *   `onReset` are not called again.
 */
export interface InvalidationChannel extends ReportsStoreFailures {
  publish(event: KeyInvalidation): Promise<void>;
  subscribe(
    listener: InvalidationListener,
    onReset?: (state: ChannelState) => void,
  ): Promise<() => Promise<void>>;
}

/** An in-process channel, with switches that simulate an outage. */
export interface MemoryInvalidationChannel extends InvalidationChannel {
  /** Stops delivery and tells every subscriber `"interrupted"`; published events are dropped. */
  interrupt(): void;
  /** Resumes delivery and tells every subscriber `"live"`. */
  restore(): void;
}

/**
 * Invalidation between several caches of one process: for tests, and for a process that builds
 * more than one store over the same data. Events are delivered on a later microtask, as a network
 * channel would, never inside `publish`.
 *
 * @example
 * const channel = memoryInvalidationChannel();
 * const a = cachedKeyStore(inner, { channel });
 * const b = cachedKeyStore(inner, { channel });
 * await b.revoke(keyId, Date.now()); // a drops its copy of the key too
 */
export function memoryInvalidationChannel(): MemoryInvalidationChannel {
  const subscribers = new Set<{
    listener: InvalidationListener;
    onReset: ((state: ChannelState) => void) | undefined;
  }>();
  let live = true;
  /** `subscribe` calls made during an outage, resolved when it ends. */
  const waiting: (() => void)[] = [];

  return {
    async publish(event) {
      if (!live) return;
      const copy = { keyId: event.keyId, secretHash: event.secretHash };
      queueMicrotask(() => {
        if (!live) return;
        for (const subscriber of subscribers) subscriber.listener(copy);
      });
    },

    async subscribe(listener, onReset) {
      const subscriber = { listener, onReset };
      subscribers.add(subscriber);
      if (!live) await new Promise<void>((resolve) => waiting.push(resolve));
      return async () => {
        subscribers.delete(subscriber);
      };
    },

    interrupt() {
      live = false;
      for (const subscriber of subscribers) subscriber.onReset?.("interrupted");
    },

    restore() {
      live = true;
      for (const subscriber of subscribers) subscriber.onReset?.("live");
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}
