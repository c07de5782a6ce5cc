/**
 * A key's usage as the API shows it, with its quota and credits when it has them, and the
 * sections listed features add (`feature-interface/usage-section.ts`).
 */

import { readUsageSections, type UsageSection } from "../../feature-interface/usage-section.js";
import { earlierLastUse, shownFields } from "../../keys/key-field.js";
import { decodeUseFields } from "../../keys/use-fields.js";
import { usageLimits } from "../../limits/usage-limits.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { UsageReport } from "../key-api-types.js";
import { isoTime } from "../key-record.js";
import type { KeyOperations } from "./key-operations.js";

export type KeyUsage = (key: StoredKey) => Promise<UsageReport>;

/** @param sections the installed features' sections, known once they are installed */
export function keyUsageOperation(
  { ctx }: KeyOperations,
  sections: () => readonly UsageSection[],
): KeyUsage {
  return async (key) => {
    ctx.usageRetention?.start();
    // Buffered usage becomes visible to the reads below.
    await ctx.usageRecorder.flush();
    const now = ctx.clock.now();
    const [usage, limits, shown] = await Promise.all([
      ctx.usage.read(key.id),
      usageLimits(ctx, key, now),
      readUsageSections(sections(), { key, now }),
    ]);
    // An imported key's last use elsewhere, until Keyward counts one (its counts start at zero).
    const lastUsedAt = usage.lastUsedAt ?? earlierLastUse(key.fields, ctx.keyFields);
    // Field by field, not a spread: a store's extra fields must never reach a response.
    return {
      keyId: key.id,
      totalRequests: usage.totalRequests,
      lastUsedAt: lastUsedAt === null ? null : isoTime(lastUsedAt),
      // The fields the key's latest use wrote (`KeyField.fromUse`), those the usage report shows.
      ...shownFields(decodeUseFields(usage.useFields), ctx.keyFields, "usage"),
      endpoints: usage.endpoints,
      daily: usage.daily,
      // Only when the key has a quota or credits: otherwise the body is the contract's.
      ...limits,
      // The features' sections, each only when it has something to show.
      ...shown,
    };
  };
}
