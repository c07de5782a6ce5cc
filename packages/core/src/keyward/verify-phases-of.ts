/**
 * `verify`'s phases (`auth/verify-phases.ts`) from the kernel's extension points: the phase lists
 * of `extends.verify`, after the points that fill a phase under an older name (`legacyKeys` →
 * resolve, `keyChecks` → check, `usageAddress` and `spendSteps` → spent, `verifyWrappers` →
 * around).
 */
import type { SpendStep } from "../auth/spend-steps.js";
import { mergeVerifyPhases, type VerifyPhases } from "../auth/verify-phases.js";
import type { KernelExtensions } from "../features/kernel-extensions.js";

export function verifyPhasesOf(extensions: KernelExtensions): VerifyPhases {
  const usageAddress = extensions.usageAddress;
  const addressStep: SpendStep[] = usageAddress ? [{ name: "usage-address", usageAddress }] : [];
  return mergeVerifyPhases([
    {
      resolve: extensions.legacyKeys ? [extensions.legacyKeys] : [],
      check: extensions.keyChecks ?? [],
      spent: [...addressStep, ...(extensions.spendSteps ?? [])],
      around: extensions.verifyWrappers ?? [],
    },
    extensions.verify ?? {},
  ]);
}
