/**
 * `POST {basePath}/{key_id}/reveal`: the key's current secret, shown again, to a user who may
 * may rotate the key (its own, or an organization's with a role that may manage it, grants all its
 * scopes and an account tier that reaches its tier) and whose session is fresh: its JWT was issued
 * (`iat`) no longer than `maxSessionAge` ago and not in the future (5 s of clock skew allowed),
 * else 403 `reauthentication_required`. Every reveal writes `key.revealed`
 * when `events()` is listed. The answer is never cached.
 */

import { KeywardError } from "../../errors/keyward-error.js";
import { userActor } from "../../event-model/event-actor.js";
import type { FeatureEndpoint } from "../../feature-interface/feature.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import type { KeyRing } from "./key-ring.js";

/** How far ahead of this clock a session's `iat` may be (the signer's clock running fast). */
const issuedAtSkewMs = 5_000;

export function revealEndpoint(
  kernel: FeatureKernel,
  ring: KeyRing,
  maxSessionAgeMs: number,
): FeatureEndpoint {
  const { clock, keyModel } = kernel;
  return {
    path: "/{key_id}/reveal",
    method: "POST",
    handle: async ({ user, keyId, keys, headers }) => {
      const now = clock.now();
      const issuedAt = user.claims.iat;
      // A sign-in dated in the future is no recent sign-in: taken as one, a token minted with a
      // far `iat` would reveal for as long as it is valid.
      if (
        typeof issuedAt !== "number" ||
        !Number.isFinite(issuedAt) ||
        issuedAt * 1000 > now + issuedAtSkewMs ||
        now - issuedAt * 1000 > maxSessionAgeMs
      ) {
        throw new KeywardError(
          "reauthentication_required",
          "Revealing a secret needs a recent sign-in; sign in again and retry",
        );
      }
      // Showing the secret hands over the key: the caller must be one who may rotate it (their
      // role grants every scope it holds, their account tier reaches its tier).
      const key = await keys.access.rotatable(user, keyId);
      if (key.revokedAt !== null) throw new KeywardError("key_gone", "API key has been revoked");
      const sealed = key.fields?.sealedSecret;
      const secret = typeof sealed === "string" ? await ring.open(sealed, key.id) : null;
      // Opened, and the key's current secret (a sealed text is replaced with every rotation).
      if (secret === null || keyModel.hasher.hash(secret) !== key.secretHash) {
        throw new KeywardError(
          "secret_not_recoverable",
          "This key's secret was not kept recoverable; rotate it to get a new one",
        );
      }
      const events = kernel.events;
      await events?.append([{ event: events.build.revealed(key, now, userActor(user)) }]);
      return new Response(JSON.stringify({ id: key.id, hint: key.hint, key: secret }), {
        status: 200,
        headers: { ...headers, "content-type": "application/json", "cache-control": "no-store" },
      });
    },
  };
}
