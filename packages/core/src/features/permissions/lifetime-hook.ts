import { KeywardError } from "../../errors/keyward-error.js";
import type { BeforeCreate } from "../../keys/write-hooks.js";
import type { KeyLifetimePolicy } from "./key-lifetime.js";

/**
 * `permissions({ maxLifetime })` on create: no expiry asked → the cap; one past it → 422 at
 * `expiresAt`, nothing created; a key whose tier and owner have no cap, as it asked.
 */
export function lifetimeHook(policy: KeyLifetimePolicy): BeforeCreate {
  return {
    name: "max-lifetime",
    policy: { maxLifetime: policy },
    run({ tier, owner, expiresAt }, { clock }) {
      const maxLifetime = policy({ tier, owner });
      if (maxLifetime === undefined) return undefined;
      const latest = clock.now() + maxLifetime;
      if (expiresAt === null) return { expiresAt: latest };
      if (expiresAt <= latest) return undefined;
      throw new KeywardError("validation_failed", [
        {
          loc: ["body", "expiresAt"],
          msg: `Value error, a key of tier '${tier}' may live at most ${describeLifetime(maxLifetime)}: expiresAt must be ${new Date(latest).toISOString()} or earlier`,
          type: "value_error",
        },
      ]);
    },
  };
}

/** A lifetime as people write it: whole days when it is some, else hours, minutes or seconds. */
function describeLifetime(ms: number): string {
  const units = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1_000, "second"],
  ] as const;
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? "" : "s"}`;
  }
  return `${ms} ms`;
}
