/**
 * `disableAfterUnused`: a key unused that long is disabled, by a scan every instance runs on a
 * timer (or `keyward.permissions.scanInactive()`). Two instances scanning at once never both act:
 * the disable is a compare-and-set on the version the scan read (`commit`), so of all instances
 * that find a stale key exactly one writes it, and its `key.disabled` (actor `system`) is written
 * in that same atomic step; the others' writes match nothing and write no event. The warning ahead
 * of it, `key.inactive`, is appended with a once-key naming the key and its last use, held until
 * the disable, so it too is written once across instances, and again only after a new use.
 */
import { isoTime } from "../../api/key-record.js";
import { type CommitChange, changeCommitter } from "../../api/keys/commit-change.js";
import { systemActor } from "../../event-model/event-actor.js";
import { generateEventId } from "../../event-model/event-id.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import { earlierLastUse } from "../../keys/key-field.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { KeyLifetimePolicy } from "./key-lifetime.js";

/** Keys read per store call. */
const pageSize = 200;

export interface InactivityScanResult {
  /** Keys this scan disabled (a key another instance disabled first is not counted). */
  disabled: number;
  /** `key.inactive` warnings this scan wrote. */
  warned: number;
}

/** The once-key of a key's `key.inactive`: one per key and last use. */
export function inactiveOnceKey(keyId: string, lastActivity: number): string {
  return `key.inactive:${keyId}:${lastActivity}`;
}

export function inactivityScan(
  ctx: FeatureKernel,
  options: {
    /** How long a key may go unused, by tier and owner; undefined: never disabled. */
    unusedFor: KeyLifetimePolicy;
    /** How long before the disable its warning is written; 0: none. */
    warnMs: number;
  },
): () => Promise<InactivityScanResult> {
  const commit: CommitChange = changeCommitter({ keys: ctx.store.keys, events: ctx.events });

  /**
   * The last sign of life: the latest of the last use, the last rotation, the last time the key
   * was enabled again (else the next scan would disable it again at once) and the creation.
   */
  const lastActivity = (key: StoredKey, lastUsed: number | undefined) =>
    Math.max(lastUsed ?? 0, key.rotatedAt ?? 0, key.enabledAt ?? 0, key.createdAt);

  const warn = async (key: StoredKey, lastUsed: number | undefined, disablesAt: number) => {
    const events = ctx.events;
    if (!events) return 0;
    const written = await events.append([
      {
        event: {
          id: generateEventId(ctx.random),
          type: "key.inactive",
          occurredAt: ctx.clock.now(),
          owner: { type: key.ownerType, id: key.ownerId },
          keyId: key.id,
          actor: systemActor,
          data: {
            lastUsedAt: lastUsed === undefined ? null : isoTime(lastUsed),
            disablesAt: isoTime(disablesAt),
          },
        },
        once: { key: inactiveOnceKey(key.id, lastActivity(key, lastUsed)), until: disablesAt },
      },
    ]);
    return written.length;
  };

  const scanPage = async (page: readonly StoredKey[], result: InactivityScanResult) => {
    const now = ctx.clock.now();
    const candidates = page.filter(
      (key) => key.disabledAt === null && (key.expiresAt === null || key.expiresAt > now),
    );
    if (candidates.length === 0) return;
    const lastUsed = await ctx.store.usage.lastUsed(candidates.map((key) => key.id));
    for (const key of candidates) {
      const limit = options.unusedFor({
        tier: key.tier,
        owner: { type: key.ownerType, id: key.ownerId },
      });
      if (limit === undefined) continue;
      // A last use known from before Keyward (an imported key's), until Keyward counts one.
      const used =
        lastUsed.get(key.id)?.at ?? earlierLastUse(key.fields, ctx.keyModel.fields) ?? undefined;
      const disablesAt = lastActivity(key, used) + limit;
      if (now >= disablesAt) {
        // A compare-and-set on the version read: null when another instance (or a change) won.
        const change = { kind: "updated", key, changes: { disabledAt: now }, at: now } as const;
        if (await commit(change, systemActor)) result.disabled++;
      } else if (options.warnMs > 0 && now >= disablesAt - options.warnMs) {
        result.warned += await warn(key, used, disablesAt);
      }
    }
  };

  return async () => {
    const listLive = ctx.store.keys.listLive;
    if (!listLive) return { disabled: 0, warned: 0 };
    // This instance's buffered uses first: a key used a moment ago is not unused.
    await ctx.limits.usage.flush();
    const result: InactivityScanResult = { disabled: 0, warned: 0 };
    let after: string | undefined;
    for (;;) {
      const page = await listLive.call(
        ctx.store.keys,
        after === undefined ? { limit: pageSize } : { limit: pageSize, after },
      );
      await scanPage(page, result);
      if (page.length < pageSize) return result;
      after = page[page.length - 1]!.id;
    }
  };
}
