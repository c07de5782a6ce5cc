import type { Keyward } from "@keyward/core";

/** What `keyward.verify` decides for one request. */
export type VerifyResult = Awaited<ReturnType<Keyward["verify"]>>;

/**
 * Who an admitted request acts for: `{ kind: "key", userId, keyId, name, scopes, tier }` for an API
 * key, `{ kind: "user", userId, tier, claims }` for a user's JWT. `userId` is the key's owner.
 */
export type Principal = Extract<VerifyResult, { ok: true }>["principal"];
