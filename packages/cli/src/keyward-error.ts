/**
 * Keyward's errors, recognised by their shape. The application's instance comes from the
 * application's own copy of `@keyward/core`, not the CLI's, so `instanceof KeywardError` (and
 * `isKeywardError`) would not see its errors as Keyward's.
 */
import type { KeywardError } from "@keyward/core";

/** `error` as a `KeywardError` when it is one from any copy of `@keyward/core`, else undefined. */
export function keywardErrorOf(error: unknown): KeywardError | undefined {
  if (!(error instanceof Error) || error.name !== "KeywardError") return undefined;
  const { code, status } = error as Partial<KeywardError>;
  return typeof code === "string" && typeof status === "number"
    ? (error as KeywardError)
    : undefined;
}
