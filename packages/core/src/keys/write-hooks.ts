import type { Clock } from "../clock.js";
import type { KeywardErrorCode } from "../errors/codes.js";
import type { FeatureFieldChanges, FeatureFields, KeyStore } from "../storage/key-store.js";
import type { Owner } from "./owner.js";

/**
 * Write hooks: what features do to a key's writes before the kernel makes them (a lifetime cap, a
 * limit on keys per owner, a sealed copy of the secret). Each is a list the features append to, run
 * in the order the features are listed; a hook refuses by throwing a `KeywardError` (nothing is
 * written), or returns what it adds to the write. The kernel knows none of them.
 */
export interface WriteHooks {
  /** Before a key is created: after the body is valid and the owner decided, before the write. */
  beforeCreate?: readonly BeforeCreate[];
  /** Before a rotation's compare-and-set, with the new secret. */
  beforeRotate?: readonly BeforeRotate[];
  /** Before an update is written, with the changes it makes (feature fields included). */
  beforeUpdate?: readonly BeforeUpdate[];
}

/** What every hook is given of the instance. */
export interface WriteHookKit {
  keys: KeyStore;
  clock: Clock;
}

/** A key about to be created, as a hook sees it. */
export interface CreateDraft {
  readonly id: string;
  readonly owner: Owner;
  readonly tier: string;
  /** The expiry the body asked for (epoch ms), or null for none. */
  readonly expiresAt: number | null;
  /** The new secret, in full: never to be logged or stored as it is. */
  readonly secret: string;
  /** The feature fields the body gave. */
  readonly fields: FeatureFields;
}

/** What a create hook adds: another expiry, feature fields. Undefined: nothing. */
export interface CreateAddition {
  expiresAt?: number | null;
  fields?: FeatureFields;
}

export interface BeforeCreate {
  /** For logs and the OpenAPI document: `max-keys-per-owner`. */
  readonly name: string;
  /** The error codes the hook may answer with, so the document lists them on create. */
  readonly answers?: readonly KeywardErrorCode[];
  /**
   * The rule the hook enforces, for writes that create keys in a batch without running it one by
   * one (`imports()`, which applies it to the batch as a whole): the longest a key may live (ms,
   * by tier and owner; undefined: no cap), the most live keys an owner may hold.
   */
  readonly policy?: {
    readonly maxLifetime?: (key: { tier: string; owner: Owner }) => number | undefined;
    readonly maxLiveKeys?: number;
  };
  run(
    draft: CreateDraft,
    kit: WriteHookKit,
  ): CreateAddition | undefined | Promise<CreateAddition | undefined>;
}

/** A rotation about to be written, as a hook sees it. */
export interface RotateDraft {
  readonly id: string;
  /** The new secret, in full: never to be logged or stored as it is. */
  readonly secret: string;
  readonly now: number;
}

export interface BeforeRotate {
  readonly name: string;
  /**
   * Lets a rotation keep the secret it replaces working for a while: the rotate body's (and
   * `keys.rotate`'s) `gracePeriodSeconds` is taken, up to `maxSeconds`, only when a listed hook
   * allows a grace; with several, the smallest maximum holds. Without any, a rotation cuts the
   * old secret off at once and the body is not read.
   */
  readonly grace?: { readonly maxSeconds: number };
  /** The feature fields written with the rotation (a value sets, null removes). */
  run?(
    draft: RotateDraft,
    kit: WriteHookKit,
  ): FeatureFieldChanges | undefined | Promise<FeatureFieldChanges | undefined>;
}

/** An update about to be written, as a hook sees it. */
export interface UpdateDraft {
  readonly id: string;
  /** The feature fields the update changes (a value sets, null removes). */
  readonly fields: FeatureFieldChanges;
  readonly now: number;
}

export interface BeforeUpdate {
  readonly name: string;
  /** More feature field changes for the same write. */
  run(
    draft: UpdateDraft,
    kit: WriteHookKit,
  ): FeatureFieldChanges | undefined | Promise<FeatureFieldChanges | undefined>;
}

/** Every listed feature's hooks as one, in the order the features are listed. */
export function mergeWriteHooks(all: readonly (WriteHooks | undefined)[]): Required<WriteHooks> {
  return {
    beforeCreate: all.flatMap((hooks) => hooks?.beforeCreate ?? []),
    beforeRotate: all.flatMap((hooks) => hooks?.beforeRotate ?? []),
    beforeUpdate: all.flatMap((hooks) => hooks?.beforeUpdate ?? []),
  };
}

/** The longest grace the listed rotate hooks allow, in seconds; undefined when none allows one. */
export function maxRotationGrace(hooks: readonly BeforeRotate[]): number | undefined {
  const allowed = hooks.flatMap((hook) => (hook.grace ? [hook.grace.maxSeconds] : []));
  return allowed.length === 0 ? undefined : Math.min(...allowed);
}
