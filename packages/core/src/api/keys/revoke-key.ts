/** Revoking one key, or every key of an owner (account deletion, a leak). */
import type { EventActor } from "../../event-model/event-actor.js";
import type { Owner } from "../../keys/owner.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { RevokedKey } from "../key-api-types.js";
import { isoTime } from "../key-record.js";
import { revokedError } from "./key-errors.js";
import type { KeyOperations } from "./key-operations.js";

export interface RevokeKey {
  (key: StoredKey, actor: EventActor): Promise<RevokedKey>;
  /** Every key of `owner` not revoked yet; resolves with how many this call revoked. */
  all(owner: Owner, actor: EventActor): Promise<{ revoked: number }>;
}

export function revokeKeyOperation(ops: KeyOperations): RevokeKey {
  const { ctx } = ops;
  const revoke = async (key: StoredKey, actor: EventActor): Promise<RevokedKey> => {
    if (key.revokedAt !== null) throw revokedError();
    const revoked = await ops.commit({ kind: "revoked", key, at: ctx.clock.now() }, actor);
    // null: a concurrent revoke won; the outcome the caller asked for holds, but not by this call.
    if (!revoked || revoked.revokedAt === null) throw revokedError();
    return { id: revoked.id, status: "revoked", revokedAt: isoTime(revoked.revokedAt) };
  };
  return Object.assign(revoke, {
    async all(owner: Owner, actor: EventActor) {
      let revoked = 0;
      for (const key of await ctx.keys.listByOwner(owner)) {
        if (key.revokedAt !== null) continue;
        // null: revoked concurrently by someone else; it counts for them (and so does the event).
        if (await ops.commit({ kind: "revoked", key, at: ctx.clock.now() }, actor)) revoked++;
      }
      return { revoked };
    },
  });
}
