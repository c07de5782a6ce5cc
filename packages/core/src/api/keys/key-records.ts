/** Stored keys as the API shows them, with when each was last used and what that use wrote. */

import { earlierLastUse } from "../../keys/key-field.js";
import { decodeUseFields } from "../../keys/use-fields.js";
import type { KeywardContext } from "../../keyward/context.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { LastUse } from "../../storage/usage-store.js";
import { type KeyRecord, toKeyRecord } from "../key-record.js";

export interface KeyRecords {
  /** One key's record at `now`, its last use read from the usage store. */
  one(key: StoredKey, now: number): Promise<KeyRecord>;
  /** Several keys' records, their last uses read in one call. */
  many(keys: readonly StoredKey[]): Promise<KeyRecord[]>;
}

export function keyRecords(ctx: KeywardContext): KeyRecords {
  /**
   * The environment a record shows: only a key outside the default environment has one, as only
   * an organization's key has an `owner`, so records stay the contract's until a key is made
   * elsewhere.
   */
  const environmentOf = (key: StoredKey) => {
    if (!ctx.environments.configured) return undefined;
    const environment = ctx.environments.ofKey(key);
    return environment === ctx.environments.defaultName ? undefined : environment;
  };
  // A last use known from before Keyward (an imported key's) stands until Keyward counts one.
  const recordOf = (key: StoredKey, now: number, lastUse: LastUse | undefined) =>
    toKeyRecord(key, now, {
      lastUsedAt: lastUse?.at ?? earlierLastUse(key.fields, ctx.keyFields),
      environment: environmentOf(key),
      useFields: decodeUseFields(lastUse?.useFields),
      fields: ctx.keyFields,
    });
  return {
    async one(key, now) {
      const lastUsed = await ctx.usage.lastUsed([key.id]);
      return recordOf(key, now, lastUsed.get(key.id));
    },
    async many(keys) {
      const lastUsed = keys.length
        ? await ctx.usage.lastUsed(keys.map((key) => key.id))
        : new Map<string, LastUse>();
      const now = ctx.clock.now();
      return keys.map((key) => recordOf(key, now, lastUsed.get(key.id)));
    },
  };
}
