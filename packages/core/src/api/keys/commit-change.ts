/**
 * Every change to a key goes through one `commit`: its events are built from the change (when the
 * events feature is listed), the key store writes the change and its events in one atomic step, and
 * only then is anyone told about the events. A change the store refuses (a compare-and-set that
 * lost, a key revoked meanwhile) writes no event and tells no one.
 */
import type { EventActor } from "../../event-model/event-actor.js";
import type { KeywardContext } from "../../keyward/context.js";
import type { KeyRotation, KeyUpdate, StoredKey } from "../../storage/key-store.js";

/** A change to a key, as read before it (`key`) and what it sets. */
export type KeyChange =
  | { kind: "created"; key: StoredKey }
  /** Applied only if the record is still at `key.version`. */
  | { kind: "updated"; key: StoredKey; changes: KeyUpdate; at: number }
  | { kind: "rotated"; key: StoredKey; rotation: KeyRotation }
  | { kind: "revoked"; key: StoredKey; at: number };

/**
 * Writes `change` with its events. Resolves with the record as written, or null when the store
 * did not apply it (a concurrent change won; the caller decides what that means).
 */
export type CommitChange = (change: KeyChange, actor: EventActor) => Promise<StoredKey | null>;

/** What a commit writes with: the key store, and the event journal when one is kept. */
export type CommitParts = Pick<KeywardContext, "keys" | "events">;

export function changeCommitter(ctx: CommitParts): CommitChange {
  return async (change, actor) => {
    const events = ctx.events;
    let written: StoredKey | null;
    switch (change.kind) {
      case "created": {
        const built = events?.build.created(change.key, actor);
        await ctx.keys.create(change.key, built);
        if (built) events?.committed(built);
        return change.key;
      }
      case "updated": {
        const { key, changes, at } = change;
        const built = events?.build.updated(key, changes, at, actor);
        written = await ctx.keys.update(key.id, changes, built, key.version);
        if (written && built) events?.committed(built);
        return written;
      }
      case "rotated": {
        const { key, rotation } = change;
        const built = events?.build.rotated(
          key,
          rotation.hint,
          rotation.rotatedAt,
          actor,
          rotation.previousSecretExpiresAt ?? null,
        );
        written = await ctx.keys.rotate(rotation, built);
        if (written && built) events?.committed(built);
        return written;
      }
      case "revoked": {
        const built = events?.build.revoked(change.key, change.at, actor);
        // null: a concurrent revoke won, and its events were its own.
        written = await ctx.keys.revoke(change.key.id, change.at, built);
        if (written && built) events?.committed(built);
        return written;
      }
    }
  };
}
