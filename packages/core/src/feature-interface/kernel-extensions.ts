/**
 * The kernel's named extension points: the places where a feature changes how the kernel itself
 * works, rather than adding beside it. A feature fills them in `KeywardFeature.extends`; they are
 * read once, before the kernel is built. Each is named after what the kernel does, never after a
 * feature: what only one feature needs stays in that feature's own configuration. `verify`,
 * `fields` and `writes` are lists every listed feature adds to; `access` and `journal` are filled
 * by one feature at most.
 */
import { mergeVerifyPhases, type VerifyPhases } from "../auth/verify-phases.js";
import type { EventBus } from "../bus/event-bus.js";
import type { Clock } from "../clock.js";
import type { EventRecorder } from "../event-model/event-recorder.js";
import type { KeyField } from "../keys/key-field.js";
import type { OrganizationAccess } from "../keys/organization-access.js";
import { mergeWriteHooks, type WriteHooks } from "../keys/write-hooks.js";
import type { RandomSource } from "../random.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { EventLog } from "../storage/event-log.js";
import type { KeyStore } from "../storage/key-store.js";
import type { TierLadder } from "../tiers/tier-ladder.js";

export interface KernelExtensions {
  /**
   * Steps in `verify`'s phases (`auth/verify-phases.ts`): `resolve` (tokens in other formats →
   * stored keys), `check` (refusals of a found key: allowlists, resources…), `charge` (limit
   * layers), `spent` (after a request was admitted and charged: usage events, the last address…)
   * and `around` (observers of every verification). Each phase a list, every feature's joined in
   * the order the features are listed.
   */
  verify?: Partial<VerifyPhases>;
  /**
   * The fields the feature adds to a key (`keys/key-field.ts`): taken from the create and update
   * bodies, kept in the stored key's `fields`, shown on records and in events, described in the
   * OpenAPI document. A list; two features may not declare one name.
   */
  fields?: readonly KeyField[];
  /**
   * What the feature does before the kernel writes a key (`keys/write-hooks.ts`): `beforeCreate`,
   * `beforeRotate`, `beforeUpdate`, each a list run in the order the features are listed (a
   * lifetime cap, a limit on keys per owner, the sealing of each new secret, the grace a rotation
   * may give the secret it replaces).
   */
  writes?: WriteHooks;
  /**
   * Who may act on keys the signed-in user does not own (`keys/organization-access.ts`): asked for
   * every key of another owner and every call naming one. Unfilled, nobody may.
   */
  access?: (kernel: { tiers: TierLadder; scopes: ScopeRegistry }) => OrganizationAccess;
  /**
   * The event journal (`event-model/event-recorder.ts`): builds each key change's events, which
   * the key store writes in the change's own atomic step, and writes events of their own
   * (`append`); the kernel publishes each committed event on its bus. Unfilled, changes are
   * written with no event, and features that write events (reveals, leaks, imports, scans,
   * usage thresholds) write none.
   */
  journal?: (kernel: JournalKernel) => EventRecorder;
}

/** What the kernel gives the journal. */
export interface JournalKernel {
  log: EventLog;
  /** The listed features' key fields: those with an event schema are written in events. */
  fields: readonly KeyField[];
  /** The instance's event bus: each committed event is published under its type (`key.created`). */
  bus: EventBus;
  keys: KeyStore;
  clock: Clock;
  random: RandomSource;
  reportFailure(message: string, cause: unknown): void;
}

/** The points several features add to (lists), rather than one feature fills. */
const listPoints = new Set(["fields"]);

/** Every feature's extensions as one: a point filled twice is a configuration error. */
export function mergeExtensions(
  features: readonly { name: string; extends?: KernelExtensions }[],
): KernelExtensions {
  const merged: Record<string, unknown> = {};
  const filledBy: Record<string, string> = {};
  for (const feature of features) {
    for (const [point, value] of Object.entries(feature.extends ?? {})) {
      if (value === undefined) continue;
      if (point === "writes") {
        merged.writes = mergeWriteHooks([merged.writes as WriteHooks | undefined, value]);
        continue;
      }
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
