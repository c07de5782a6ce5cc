import type { ChannelState } from "@keyward/core/toolkit";

/**
 * One driver's way of receiving NOTIFY messages. `pg` needs a dedicated connection that it can
 * lose and reopen; PGlite and postgres.js have a `listen` of their own.
 */
export interface NotificationSource {
  /**
   * Starts listening on `channel` and returns the function that stops it. `onState("live")` is
   * called each time LISTEN is in effect, the first time included; `onState("interrupted")`
   * whenever notifications may have been lost.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onState: (state: ChannelState) => void,
  ): () => Promise<void>;
}

/** A channel name as a quoted identifier, for LISTEN and UNLISTEN. */
export function quoteChannel(channel: string): string {
  if (channel.includes('"') || channel.includes("\u0000")) {
    throw new TypeError(`Invalid channel name ${JSON.stringify(channel)}`);
  }
  return `"${channel}"`;
}
