/**
 * An import is a create: each new key meets the rules `keys.create` applies, against the store as
 * it is now. Every problem of every record is reported, and any refuses the whole import.
 *
 * - its secret is no other key's, current or previous within a grace period (else a token would
 *   find two keys, and the store's write fail half-way);
 * - its tier is within its owner's account tier: the record's `accountTier`, else the one recorded
 *   with the owner's keys (an organization's is kept), else, for an owner with no key yet, the
 *   highest tier this import gives them; the key records that tier, as a created key does, so its
 *   owner's quota applies from its first request;
 * - its expiry is within `permissions({ maxLifetime })` (none given: the cap);
 * - its owner stays within `maxKeysPerOwner`.
 */
import type { ValidationIssue } from "../../errors/validation-issue.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import type { Owner } from "../../keys/owner.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { CheckedImportRecord } from "./import-record.js";

/** A record ready to write: its place in the list, the record as checked, the key it makes. */
export interface PreparedImport {
  index: number;
  record: CheckedImportRecord;
  key: StoredKey;
}

export interface PolicyOutcome {
  /** The records not stored yet, their keys with the policies applied. */
  fresh: PreparedImport[];
  /** How many records are already stored (an earlier import): left as they are. */
  unchanged: number;
  refused: { index: number; issues: ValidationIssue[] }[];
  /** The account tiers the records state (other than recorded), to record once the keys are written. */
  accountTiers: { owner: Owner; tier: string }[];
  /** The account tier each owner of a new key has, as decided here. */
  ownerTiers: { owner: Owner; tier: string }[];
}

/** How many lookups run at once. */
const concurrency = 64;

async function eachLimited<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += concurrency) {
    results.push(...(await Promise.all(items.slice(start, start + concurrency).map(run))));
  }
  return results;
}

const ownerKey = (owner: Owner) => `${owner.type}\u0000${owner.id}`;

export async function applyCreatePolicies(
  ctx: FeatureKernel,
  prepared: readonly PreparedImport[],
  now: number,
): Promise<PolicyOutcome> {
  const issuesOf = new Map<number, ValidationIssue[]>();
  const refuse = (index: number, issue: ValidationIssue) => {
    const list = issuesOf.get(index) ?? [];
    list.push(issue);
    issuesOf.set(index, list);
  };

  // Already stored (an earlier run): left as they are, no rule applied again.
  const stored = await eachLimited(prepared, (entry) => ctx.store.keys.findById(entry.key.id));
  const fresh = prepared.filter((_, i) => stored[i] === null);

  // Secrets another key answers to.
  const holders = await eachLimited(fresh, (entry) =>
    ctx.store.keys.findByHash(entry.key.secretHash),
  );
  fresh.forEach((entry, i) => {
    const holder = holders[i];
    if (holder && holder.id !== entry.key.id) {
      refuse(entry.index, {
        loc: [entry.record.key === undefined ? "hash" : "key"],
        msg: `Value error, this secret is already key ${holder.id}'s (its current secret, or its previous one within a grace period)`,
        type: "value_error",
      });
    }
  });

  // Owners: their account tier, and their live keys when a maximum applies.
  const byOwner = new Map<string, { owner: Owner; entries: PreparedImport[] }>();
  for (const entry of fresh) {
    const owner: Owner = { type: entry.key.ownerType, id: entry.key.ownerId };
    const group = byOwner.get(ownerKey(owner)) ?? { owner, entries: [] };
    group.entries.push(entry);
    byOwner.set(ownerKey(owner), group);
  }
  const groups = [...byOwner.values()];
  const newest = await eachLimited(groups, async ({ owner }) => {
    const [key] = await ctx.store.keys.listByOwner(owner, { limit: 1 });
    return key;
  });
  const accountTiers: PolicyOutcome["accountTiers"] = [];
  const ownerTiers: PolicyOutcome["ownerTiers"] = [];
  groups.forEach(({ owner, entries }, i) => {
    const stated = [...new Set(entries.flatMap((entry) => entry.record.accountTier ?? []))];
    if (stated.length > 1) {
      for (const entry of entries) {
        if (entry.record.accountTier === undefined) continue;
        refuse(entry.index, {
          loc: ["accountTier"],
          msg: `Value error, the owner's records state different account tiers (${stated.join(", ")})`,
          type: "value_error",
        });
      }
      return;
    }
    const recorded = newest[i];
    const accountTier = ctx.keyModel.tiers.resolveAccountTier(
      stated[0] ??
        (recorded
          ? (recorded.ownerTier ?? undefined)
          : highestTier(
              ctx,
              entries.map((entry) => entry.key.tier),
            )),
    );
    ownerTiers.push({ owner, tier: accountTier });
    if (stated[0] !== undefined && stated[0] !== recorded?.ownerTier) {
      accountTiers.push({ owner, tier: accountTier });
    }
    for (const entry of entries) {
      entry.key.ownerTier = accountTier;
      if (!ctx.keyModel.tiers.allows(accountTier, entry.key.tier)) {
        refuse(entry.index, {
          loc: ["tier"],
          msg: `Value error, tier '${entry.key.tier}' is above the owner's account tier '${accountTier}'${stated[0] === undefined ? " (give the record's accountTier to state another)" : ""}`,
          type: "value_error",
        });
      }
    }
  });

  // The rules the listed features' create hooks enforce, applied to the batch as a whole.
  const policies = ctx.keyModel.writes.beforeCreate.flatMap((hook) =>
    hook.policy ? [hook.policy] : [],
  );
  const caps = policies.flatMap((policy) => (policy.maxLifetime ? [policy.maxLifetime] : []));
  const lifetimeOf = (key: { tier: string; owner: Owner }): number | undefined => {
    const each = caps.map((cap) => cap(key)).filter((ms): ms is number => ms !== undefined);
    return each.length === 0 ? undefined : Math.min(...each);
  };
  const limits = policies.flatMap((policy) =>
    policy.maxLiveKeys === undefined ? [] : [policy.maxLiveKeys],
  );
  const maxLiveKeys = limits.length === 0 ? undefined : Math.min(...limits);

  // Lifetimes: none given takes the cap; one past it is refused.
  for (const entry of fresh) {
    const owner: Owner = { type: entry.key.ownerType, id: entry.key.ownerId };
    const maxLifetime = lifetimeOf({ tier: entry.key.tier, owner });
    if (maxLifetime === undefined) continue;
    const latest = now + maxLifetime;
    if (entry.key.expiresAt === null) entry.key.expiresAt = latest;
    else if (entry.key.expiresAt > latest) {
      refuse(entry.index, {
        loc: ["expiresAt"],
        msg: `Value error, a key of tier '${entry.key.tier}' may live at most until ${new Date(latest).toISOString()} (permissions({ maxLifetime }))`,
        type: "value_error",
      });
    }
  }

  // The most keys an owner may hold: live keys now, and this import's live ones.
  const max = maxLiveKeys;
  if (max !== undefined) {
    const live = await eachLimited(groups, async ({ owner }) =>
      ctx.store.keys.countLiveByOwner
        ? ctx.store.keys.countLiveByOwner(owner, now)
        : (await ctx.store.keys.listByOwner(owner)).filter(
            (key) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now),
          ).length,
    );
    groups.forEach(({ entries }, i) => {
      let count = live[i]!;
      for (const entry of entries) {
        if (entry.key.expiresAt !== null && entry.key.expiresAt <= now) continue;
        count++;
        if (count > max) {
          refuse(entry.index, {
            loc: ["owner"],
            msg: `Value error, the owner would hold more than ${max} live keys (maxKeysPerOwner)`,
            type: "value_error",
          });
        }
      }
    });
  }

  const refused = [...issuesOf]
    .sort(([a], [b]) => a - b)
    .map(([index, issues]) => ({ index, issues }));
  return {
    fresh,
    unchanged: prepared.length - fresh.length,
    refused,
    accountTiers,
    ownerTiers,
  };
}

/** The highest of `names` on the ladder. */
function highestTier(ctx: FeatureKernel, names: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const name of names) {
    if (best === undefined || ctx.keyModel.tiers.rank(name) > ctx.keyModel.tiers.rank(best))
      best = name;
  }
  return best;
}
