import type { KeyField } from "../../keys/key-field.js";

/**
 * `importedLastUsedAt`, the key field of imported keys: when the system a key came from last saw it
 * used (epoch ms), written by the import, shown as the key's `lastUsedAt` until Keyward counts a
 * use of its own. Never in a body: no create or update schema.
 */
export const importedLastUseField: KeyField<number> = {
  name: "importedLastUsedAt",
  lastUse: true,
};
