/**
 * The instance's event vocabulary: the kernel's own event types (`eventTypes`, `event.ts`) and
 * those the listed features declare (`KeywardFeature.eventTypes`). A feature that writes an event
 * of its own (an exchange's `token.issued`, a spending threshold crossed) declares its type with
 * the schema of its `data` and whether it is written to the key's audit log; the audit log's type
 * filter (`GET {basePath}/{key_id}/events?types=`), a webhook endpoint's `types` and the OpenAPI
 * document's events then know it, and know nothing of a feature that is not listed.
 *
 * Declaring a type writes nothing: the feature writes its events itself (through the journal, the
 * facade's `events`, when the type is audited; on the bus otherwise).
 */
import type { JsonSchema } from "../feature-interface/openapi-types.js";
import { eventTypes } from "./event.js";

/** An event type a feature writes, as it declares it. */
export interface EventTypeDeclaration {
  /** `family.name` in lower case, like the kernel's: `token.issued`. */
  readonly type: string;
  /** What happened, one sentence: the OpenAPI document's description of the event. */
  readonly description: string;
  /** The JSON Schema of the event's `data`, for the OpenAPI document. */
  readonly data: JsonSchema;
  /**
   * Whether the feature writes it to the key's audit log (through the journal, when `events()` is
   * listed): then it is listed and filtered by `GET {basePath}/{key_id}/events`, delivered by
   * `webhooks()`, and described among the document's events. False: it is published on the
   * instance's bus only (what another feature hears, a meter say); the type filter and a webhook
   * endpoint's `types` refuse it, saying so.
   */
  readonly audit: boolean;
}

/** The instance's event types, as the features that read them see them. */
export interface EventTypes {
  /** Every type the audit log may hold: the kernel's, then the audited declared ones. */
  readonly audited: readonly string[];
  /** The listed features' declarations, in the order the features are listed. */
  readonly declared: readonly EventTypeDeclaration[];
  /** Whether the audit log may hold events of `type`. */
  audits(type: unknown): type is string;
  /** The declaration of `type` when it is published on the bus only, else undefined. */
  busOnly(type: unknown): EventTypeDeclaration | undefined;
}

/**
 * The vocabulary of an instance whose features are `features`: throws a `TypeError` at start for a
 * type the kernel already has or two features declare. (A declaration's shape is its type's, as a
 * key field's is: features are code, checked by the compiler.)
 */
export function eventTypesOf(
  features: readonly { name: string; eventTypes?: readonly EventTypeDeclaration[] }[],
): EventTypes {
  const declaredBy = new Map<string, string>(eventTypes.map((type) => [type, "the kernel"]));
  const declared: EventTypeDeclaration[] = [];
  for (const feature of features) {
    for (const declaration of feature.eventTypes ?? []) {
      const { type } = declaration;
      const earlier = declaredBy.get(type);
      if (earlier !== undefined) {
        throw new TypeError(
          `Keyward: \`${feature.name}\` declares the event type \`${type}\`, which ${earlier} has`,
        );
      }
      declaredBy.set(type, `\`${feature.name}\``);
      declared.push(declaration);
    }
  }
  const audited = [...eventTypes, ...declared.filter((one) => one.audit).map(({ type }) => type)];
  const busOnly = (type: unknown) => declared.find((one) => !one.audit && one.type === type);
  return {
    audited,
    declared,
    audits: (type): type is string => (audited as unknown[]).includes(type),
    busOnly,
  };
}
