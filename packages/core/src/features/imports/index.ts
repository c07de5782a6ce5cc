/**
 * `@keyward/core/imports`: bring your keys. Listed, `keyward.imports.importKeys(records)` stores
 * keys another system issued (their plaintext or, usually, their hashes), and `verify` accepts
 * their tokens in their own format: a Keyward key costs nothing more, a token in another format one
 * more hash, and an imported key is rehashed to Keyward's hash on its first use. See
 * docs/importing.md.
 *
 * @example
 * import { imports } from "@keyward/core/imports";
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [imports({ prefixes: ["ba_"] })] });
 * const report = await keyward.imports.importKeys([
 *   { hash: { value: "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg", algorithm: "sha256", encoding: "base64url" },
 *     prefix: "ba_", owner: "user_1", scopes: ["profile:read"], tier: "free" },
 * ]);
 */
import type { KeywardFeature } from "../../feature-interface/feature.js";
import {
  createImportKeys,
  type ImportCheck,
  type ImportKeysOptions,
  type ImportReport,
} from "./import-keys.js";
import { importRecordSchema } from "./import-record.js";
import { importedLastUseField } from "./imported-last-use.js";
import { checkImportsConfig, type ImportsConfig } from "./imports-config.js";
import { legacyHashers, legacyKeyLookup } from "./legacy-lookup.js";

export type { HashEncoding } from "./hash-encoding.js";
export type { ImportCheck, ImportKeysOptions, ImportReport } from "./import-keys.js";
export type { ImportedHash, ImportRecord } from "./import-record.js";
export type { ImportsConfig } from "./imports-config.js";

/** `keyward.imports`: present when `imports()` is listed. */
export interface ImportsApi {
  /**
   * Checks every record as create checks a body (and whether `verify` would ever find it), and,
   * if none is refused, stores them in one atomic write, each writing `key.imported`; a key an
   * earlier import stored is left as it is. Refused records are reported, and then nothing is
   * written.
   */
  importKeys(records: readonly unknown[], options?: ImportKeysOptions): Promise<ImportReport>;
  /**
   * The records `importKeys` would refuse, and why, without asking the store: to check a whole
   * import before writing it in several calls (the CLI's batches).
   */
  check(
    records: readonly unknown[],
    options?: Pick<ImportKeysOptions, "skipUnverifiable">,
  ): ImportCheck;
}

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function imports(config: ImportsConfig = {}): KeywardFeature<"imports", ImportsApi> {
  checkImportsConfig(config);
  const hashers = legacyHashers(config);
  const lookup = legacyKeyLookup(config, hashers);
  return {
    name: "imports",
    requires: [
      {
        has: (store) =>
          typeof store.keys.importKeys === "function" && typeof store.keys.rehash === "function",
        missing:
          "a key store that imports keys and rehashes them (`keys.importKeys` and `keys.rehash`: the memory, PostgreSQL and Redis stores have both)",
      },
    ],
    extends: {
      verify: { resolve: [lookup] },
      fields: [importedLastUseField],
    },
    install: (kernel) => {
      const { keyModel, clock } = kernel;
      const schema = importRecordSchema({
        scopes: keyModel.scopes,
        tiers: keyModel.tiers,
        peppers: new Set(Object.keys(config.peppers ?? {})),
        now: () => clock.now(),
      });
      const verifiable = { format: keyModel.format, lookup, prefixes: config.prefixes };
      return { api: createImportKeys(kernel, schema, hashers, verifiable) };
    },
  };
}
