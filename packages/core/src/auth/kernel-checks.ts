/**
 * The kernel's own key checks, which `verify`'s phase "check" runs before the features' (see
 * `key-checks.ts`): the route's environment against the key's recorded one, and the refusal of a
 * key with a restricting field where no listed feature checks it (`keys/restricting-fields.ts`:
 * refused, never waved through).
 */
import { uncheckedRestrictions } from "../keys/restricting-fields.js";
import type { KeywardContext } from "../keyward/context.js";
import type { KeyCheck } from "./key-checks.js";
import { otherEnvironmentKey } from "./verify-refusals.js";

/** The kernel's checks, then `features`'. */
export function keyChecksOf(
  ctx: Pick<KeywardContext, "environments" | "keyFields">,
  features: readonly KeyCheck[],
): readonly KeyCheck[] {
  const environment: KeyCheck = {
    // The prefix said which environment the token claims; the record says which one the key is
    // in. They agree for every key Keyward made, but a secret issued with another prefix (by a
    // second configuration writing to the same store) must not pass a route of the other one.
    name: "environment",
    check(key, options) {
      if (options.environment === undefined) return undefined;
      const actual = ctx.environments.ofKey(key);
      return actual === options.environment
        ? undefined
        : otherEnvironmentKey(actual, options.environment);
    },
  };
  // A restricting field no listed feature declares is one no listed feature checks (see
  // `keys/restricting-fields.ts`, the kernel's list of them).
  const declared = new Set(ctx.keyFields.map((field) => field.name));
  return [environment, ...uncheckedRestrictions(declared), ...features];
}
