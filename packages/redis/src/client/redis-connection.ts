/**
 * The small surface the store needs from a Redis client, whichever client it is: run a script
 * (`EVALSHA`, falling back to `EVAL`), publish, and open a dedicated subscriber connection. Every
 * data operation is a Lua script, so this shim is all there is per driver, and it works the same on
 * a single server and on a cluster (each script names its keys, and the client routes by them).
 * The types only: `connect.ts` picks the driver, so the drivers can import these without a cycle.
 */
import type { LuaScript } from "./lua-script.js";

/** Events of one subscriber connection. */
export interface SubscriberEvents {
  onMessage(message: string): void;
  /** The connection is gone (closed, reset, failed): messages may have been missed from here on. */
  onLost(): void;
}

/** One dedicated connection in subscriber mode, listening to one channel. */
export interface Subscriber {
  /** Resolves once the server has confirmed the subscription; rejects if that failed. */
  readonly ready: Promise<void>;
  /** A round trip on this very connection, to check it still delivers. */
  ping(): Promise<unknown>;
  /** Closes the connection; `onLost` is not called for it. */
  close(): void;
}

export interface RedisConnection {
  /** A Redis Cluster: a script may only touch keys of one slot. */
  readonly cluster: boolean;
  /** Runs a script by SHA, sending its source when the server answers `NOSCRIPT`. */
  run(script: LuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  /** A new connection of its own (the client's settings, no automatic reconnection). */
  openSubscriber(channel: string, events: SubscriberEvents): Subscriber;
}
