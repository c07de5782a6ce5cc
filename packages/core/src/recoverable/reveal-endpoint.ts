/**
 * `POST {basePath}/{key_id}/reveal`: the key's current secret, shown again, to a user who may
 * manage the key and whose session is fresh: its JWT was issued (`iat`) no longer than
 * `maxSessionAge` ago, else 403 `reauthentication_required`. Every reveal writes `key.revealed`
 * when `events()` is listed. The answer is never cached.
 */

import { KeywardError } from "../errors/keyward-error.js";
import { userActor } from "../event-model/event-actor.js";
import type { FeatureEndpoint } from "../features/feature.js";
import type { KeyRing } from "./key-ring.js";

export function revealEndpoint(ring: KeyRing, maxSessionAgeMs: number): FeatureEndpoint {
  return {
    path: "/{key_id}/reveal",
    method: "POST",
    handle: async ({ user, keyId, keys, context, headers }) => {
      const now = context.clock.now();
      const issuedAt = user.claims.iat;
      if (typeof issuedAt !== "number" || now - issuedAt * 1000 > maxSessionAgeMs) {
        throw new KeywardError(
          "reauthentication_required",
          "Revealing a secret needs a recent sign-in; sign in again and retry",
        );
      }
      const key = await keys.access.manageable(user, keyId);
      if (key.revokedAt !== null) throw new KeywardError("key_gone", "API key has been revoked");
      const sealed = key.fields?.sealedSecret;
      const secret = typeof sealed === "string" ? await ring.open(sealed, key.id) : null;
      // Opened, and the key's current secret (a sealed text is replaced with every rotation).
      if (secret === null || context.hasher.hash(secret) !== key.secretHash) {
        throw new KeywardError(
          "secret_not_recoverable",
          "This key's secret was not kept recoverable; rotate it to get a new one",
        );
      }
      await context.events?.append([
        { event: context.events.build.revealed(key, now, userActor(user)) },
      ]);
      return new Response(JSON.stringify({ id: key.id, hint: key.hint, key: secret }), {
        status: 200,
        headers: { ...headers, "content-type": "application/json", "cache-control": "no-store" },
      });
    },
  };
}
