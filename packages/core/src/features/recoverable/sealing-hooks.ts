import type { KeyField } from "../../keys/key-field.js";
import type { WriteHooks } from "../../keys/write-hooks.js";
import type { KeyRing } from "./key-ring.js";

/**
 * `sealedSecret`, recoverable()'s key field: the current secret encrypted under the key ring
 * (AES-256-GCM, bound to the key's id; an opaque text the database never can open). Never in a
 * body, on a record or in an event: only the reveal endpoint opens it.
 */
export const sealedSecretField: KeyField<string> = { name: "sealedSecret" };

/** Seals every secret `create` and `rotate` issue, written with the key in the same write. */
export function sealingHooks(ring: KeyRing): WriteHooks {
  return {
    beforeCreate: [
      {
        name: "seal-secret",
        run: async ({ id, secret }) => ({
          fields: { [sealedSecretField.name]: await ring.seal(secret, id) },
        }),
      },
    ],
    beforeRotate: [
      {
        name: "seal-secret",
        run: async ({ id, secret }) => ({ [sealedSecretField.name]: await ring.seal(secret, id) }),
      },
    ],
  };
}
