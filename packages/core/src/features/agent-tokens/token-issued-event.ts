/**
 * `token.issued`: an exchange, as the audit log keeps it. With `events()` listed it is written to
 * the key's log (`keyward.events.list`, `GET {basePath}/{key_id}/events`) before the token is
 * handed over, told to `onEvent` and published on the bus by `events()` as every committed event
 * is; without it, published on the bus as it would have been written. Never the token: its `jti`
 * names it. The actor is `system`, as for the other events a key's own request causes
 * (`quota.threshold`, `credits.exhausted`): Keyward issued it to the key's holder.
 *
 * The type is declared here, by the feature that writes it (`tokenIssuedType`, the feature's
 * `eventTypes`), so the kernel's event model names nothing of it, and yet the audit log's type
 * filter, webhooks' `types` and the OpenAPI document know it; stores keep an event's type and data
 * as given.
 */
import type { EventBus } from "../../bus/event-bus.js";
import type { StoredEvent } from "../../event-model/event.js";
import { generateEventId } from "../../event-model/event-id.js";
import type { EventRecorder } from "../../event-model/event-recorder.js";
import type { EventTypeDeclaration } from "../../event-model/event-types.js";
import type { RandomSource } from "../../random.js";
import { type IssuedToken, tokenIssuedTopic } from "./issued-token.js";

declare module "../../event-model/event.js" {
  interface EventDataByType {
    /**
     * The key was exchanged for a token (`agentTokens()`, `POST {basePath}/tokens`): its id, the
     * audience, scopes and resources it carries and when it expires; the event's time is the
     * exchange's. Never the token itself.
     */
    "token.issued": {
      jti: string;
      audience: string;
      scopes: string[];
      resources?: Record<string, string[]>;
      expiresAt: string;
    };
  }
}

const textList = { type: "array", items: { type: "string" } };

/** `token.issued` as `agentTokens()` declares it: audited, with its data's schema. */
export const tokenIssuedType: EventTypeDeclaration = {
  type: tokenIssuedTopic,
  description:
    "The key was exchanged for a short-lived token (agentTokens(), POST {basePath}/tokens); never the token itself",
  audit: true,
  data: {
    type: "object",
    properties: {
      jti: { type: "string", description: "The token's id (its `jti` claim)" },
      audience: { type: "string", description: "The audience the token is bound to (its `aud`)" },
      scopes: { ...textList, description: "The scopes the token carries, at most the key's" },
      resources: {
        type: "object",
        additionalProperties: textList,
        description: "The resources the token is limited to, by kind, when it is",
      },
      expiresAt: { type: "string", format: "date-time", description: "When the token expires" },
    },
    required: ["jti", "audience", "scopes", "expiresAt"],
  },
};

export function tokenIssuedEvent(token: IssuedToken, random: RandomSource): StoredEvent {
  return {
    id: generateEventId(random),
    type: tokenIssuedTopic,
    occurredAt: Date.parse(token.issuedAt),
    owner: token.owner,
    keyId: token.keyId,
    actor: { type: "system" },
    data: {
      jti: token.jti,
      audience: token.audience,
      scopes: [...token.scopes],
      ...(token.resources === undefined
        ? {}
        : {
            resources: Object.fromEntries(
              Object.entries(token.resources).map(([kind, ids]) => [kind, [...ids]]),
            ),
          }),
      expiresAt: token.expiresAt,
    },
  };
}

/**
 * Records an exchange: through the audit log when there is one (it publishes on the bus once
 * written), else on the bus alone. Resolves once it is written; a failed write rejects, so the
 * exchange fails instead of handing over a token the log does not show.
 */
export async function recordIssued(
  token: IssuedToken,
  parts: { events: EventRecorder | undefined; bus: EventBus; random: RandomSource },
): Promise<void> {
  const event = tokenIssuedEvent(token, parts.random);
  if (parts.events === undefined) {
    parts.bus.publish(event.type, event);
    return;
  }
  await parts.events.append([{ event }]);
}
