/**
 * The kernel's named extension points: the places where a feature changes how the kernel itself
 * works, rather than adding beside it. A feature fills them in `KeywardFeature.extends`; they are
 * read once, before the kernel is built, and each may be filled by one feature only.
 */
import type { KeyCheck } from "../auth/key-checks.js";
import type { KeyResolver } from "../auth/key-resolvers.js";
import type { SpendStep } from "../auth/spend-steps.js";
import { mergeVerifyPhases, type VerifyPhases } from "../auth/verify-phases.js";
import type { VerifyWrapper } from "../auth/verify-wrappers.js";
import type { Clock } from "../clock.js";
import type { EventRecorder } from "../event-model/event-recorder.js";
import type { KeyField } from "../keys/key-field.js";
import type { KeyLifetimePolicy } from "../keys/key-lifetime.js";
import type { OrganizationAccess } from "../keys/organization-access.js";
import type { SecretSealer } from "../keys/secret-sealer.js";
import type { WebhookObserver } from "../observation/webhook-observer.js";
import type { RandomSource } from "../random.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { EventLog } from "../storage/event-log.js";
import type { KeyStore } from "../storage/key-store.js";
import type { TierLadder } from "../tiers/tier-ladder.js";

export interface KernelExtensions {
  /**
   * Key prefixes by environment name, the default first, in place of the single `keys.prefix`
   * (`lifecycle({ environments })`).
   */
  environments?: Readonly<Record<string, string>>;
  /**
   * The fields the feature adds to a key (`keys/key-field.ts`): taken from the create and update
   * bodies, kept in the stored key's `fields`, shown on records and in events, described in the
   * OpenAPI document. A list; two features may not declare one name.
   */
  fields?: readonly KeyField[];
  /**
   * Checks `verify` makes of a found, live key before any limit, after the kernel's own (see
   * `auth/key-checks.ts`). A list: every feature's are run, in the order the features are listed.
   */
  keyChecks?: readonly KeyCheck[];
  /**
   * Steps `verify` takes after a request every limit layer admitted spent quota or credits (see
   * `auth/spend-steps.ts`). A list, in the order the features are listed (`events()` writes its
   * usage events here).
   */
  spendSteps?: readonly SpendStep[];
  /** The longest a new key may live, by tier and owner (`permissions({ maxLifetime })`). */
  maxKeyLifetime?: KeyLifetimePolicy;
  /** Who may act on organizations' keys (`organizations()`). */
  organizations?: (kernel: { tiers: TierLadder; scopes: ScopeRegistry }) => OrganizationAccess;
  /** The longest grace a rotation may give, in seconds (`lifecycle({ gracefulRotation })`). */
  rotationGrace?: { maxGracePeriodSeconds: number };
  /** The most live keys an owner may hold (`lifecycle`). */
  maxKeysPerOwner?: number;
  /** The events written with each key change (`events()`). */
  events?: (kernel: EventsKernel) => EventRecorder;
  /**
   * Wrappers around `verify`, each of which must return what the function it wraps decides
   * (`auth/verify-wrappers.ts`): how observers of every verification are listed
   * (`observeVerify(observer)`, `observation/observed-verify.ts`). A list, the first listed outermost.
   */
  verifyWrappers?: readonly VerifyWrapper[];
  /**
   * Observers of webhook deliveries, which the webhooks feature tells each attempt's end and how
   * to read its backlog (`observation/webhook-observer.ts`). A list.
   */
  webhookObservers?: readonly WebhookObserver[];
  /**
   * Tokens in another system's format that imported keys may have (`imports()`): `verify` looks
   * them up under their old hashes and rehashes a key it finds to Keyward's hash.
   */
  legacyKeys?: KeyResolver;
  /** Seals every secret `create` and `rotate` issue, stored with the key (`recoverable()`). */
  secretSealer?: SecretSealer;
  /**
   * The client address recorded with each use of a key (`permissions({ recordAddress: true })`):
   * `verify` hands it the request's `clientIp` and records what it answers with the use's
   * `lastUsedAt` (undefined: no address). Unfilled, `verify` records no address and does no work
   * for one.
   */
  usageAddress?: (clientIp: string) => string | undefined;
  /**
   * Steps in `verify`'s phases (`auth/verify-phases.ts`): resolve, check, charge, spent, around.
   * Each phase a list, every feature's joined in the order the features are listed.
   */
  verify?: Partial<VerifyPhases>;
}

/** What the kernel gives the events extension. */
export interface EventsKernel {
  log: EventLog;
  /** The listed features' key fields: those with an event schema are written in events. */
  fields: readonly KeyField[];
  keys: KeyStore;
  clock: Clock;
  random: RandomSource;
  reportFailure(message: string, cause: unknown): void;
}

/** The points several features add to (lists), rather than one feature fills. */
const listPoints = new Set([
  "fields",
  "keyChecks",
  "spendSteps",
  "verifyWrappers",
  "webhookObservers",
]);

/** Every feature's extensions as one: a point filled twice is a configuration error. */
export function mergeExtensions(
  features: readonly { name: string; extends?: KernelExtensions }[],
): KernelExtensions {
  const merged: Record<string, unknown> = {};
  const filledBy: Record<string, string> = {};
  for (const feature of features) {
    for (const [point, value] of Object.entries(feature.extends ?? {})) {
      if (value === undefined) continue;
      if (point === "verify") {
        const sofar = (merged.verify ?? {}) as Partial<VerifyPhases>;
        merged.verify = mergeVerifyPhases([sofar, value as Partial<VerifyPhases>]);
        continue;
      }
      if (listPoints.has(point)) {
        merged[point] = [
          ...((merged[point] as unknown[] | undefined) ?? []),
          ...(value as unknown[]),
        ];
        continue;
      }
      if (filledBy[point] !== undefined) {
        throw new TypeError(
          `Keyward: the features \`${filledBy[point]}\` and \`${feature.name}\` both set the kernel's \`${point}\`; list one of them`,
        );
      }
      filledBy[point] = feature.name;
      merged[point] = value;
    }
  }
  return merged as KernelExtensions;
}
