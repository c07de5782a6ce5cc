/**
 * The invalidation contract of `@keyward/core`'s verification cache (`cache/invalidation-channel.ts`),
 * restated structurally so this package compiles against a core that does not export it yet.
 * The shapes are identical, so a channel from here fits `cachedKeyStore(inner, { channel })`.
 */

export interface KeyInvalidation {
  keyId: string;
  secretHash: string;
}

export type ChannelState = "live" | "interrupted";

export type InvalidationListener = (event: KeyInvalidation) => void;

export interface InvalidationChannel {
  publish(event: KeyInvalidation): Promise<void>;
  subscribe(
    listener: InvalidationListener,
    onReset?: (state: ChannelState) => void,
  ): Promise<() => Promise<void>>;
}
