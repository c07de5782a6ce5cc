/** What every key operation shares: the instance, the access checks, records and one commit. */
import { internalError } from "../../errors/keyward-error.js";
import type { KeywardContext } from "../../keyward/context.js";
import { type CommitChange, changeCommitter } from "./commit-change.js";
import { type KeyAccessChecks, keyAccessChecks } from "./key-access.js";
import { MisuseError } from "./key-errors.js";
import { type KeyRecords, keyRecords } from "./key-records.js";

export interface KeyOperations {
  ctx: KeywardContext;
  access: KeyAccessChecks;
  records: KeyRecords;
  commit: CommitChange;
  /** A secret with `prefix` (its environment's), its hash and its hint. */
  newSecret(prefix: string): { secret: string; secretHash: string; hint: string };
  /**
   * Runs `work`: a storage failure becomes a 500 whose detail reveals nothing (the cause stays on
   * the error); a `KeywardError` or the host's misuse passes as it is.
   */
  guarded<T>(work: () => Promise<T>): Promise<T>;
}

export function keyOperations(ctx: KeywardContext): KeyOperations {
  return {
    ctx,
    access: keyAccessChecks(ctx),
    records: keyRecords(ctx),
    commit: changeCommitter(ctx),
    newSecret(prefix) {
      const secret = ctx.format.generate(prefix);
      return { secret, secretHash: ctx.hasher.hash(secret), hint: ctx.format.hint(secret) };
    },
    async guarded(work) {
      try {
        return await work();
      } catch (error) {
        if (error instanceof MisuseError) throw error;
        throw internalError(error);
      }
    },
  };
}
