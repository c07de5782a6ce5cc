/**
 * The facade a feature is given at install (`KeywardFeature.install(kernel)`): twelve members,
 * each a part of the instance a feature may use, rather than the kernel's whole context. What a
 * feature changes in how the kernel works goes through `extends` (`kernel-extensions.ts`); this is
 * what it works with once the instance is built.
 */
import type { InternalKeysApi } from "../api/keys-api.js";
import type { PendingVerify } from "../auth/pending-verify.js";
import type { EventBus } from "../bus/event-bus.js";
import type { Clock } from "../clock.js";
import type { Environments } from "../environments/environments.js";
import type { EventRecorder } from "../event-model/event-recorder.js";
import type { EventTypes } from "../event-model/event-types.js";
import type { KeyFormat } from "../keys/format.js";
import type { SecretHasher } from "../keys/hash.js";
import type { KeyField } from "../keys/key-field.js";
import type { WriteHooks } from "../keys/write-hooks.js";
import type { LayeredLimiter } from "../limits/layered-limiter.js";
import type { KeywardLogger } from "../logging/logger.js";
import type { RandomSource } from "../random.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { KeywardStore } from "../storage/index.js";
import type { AccountTierSync } from "../tiers/account-tier-sync.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import type { UsageRecorder } from "../usage/usage-recorder.js";
import type { InstanceDescription, PathBuilder } from "./openapi-contribution.js";

/** What the kernel offers a feature: the instance, as far as a feature may reach into it. */
export interface FeatureKernel {
  /** Normalised: starts with "/", no trailing slash. */
  readonly basePath: string;
  /** The store the instance was given, with every part (`keys`, `events`, `outbox`…) it has. */
  readonly store: KeywardStore;
  /** Key management as the kernel runs it, with its ownership and permission checks. */
  readonly keys: InternalKeysApi;
  /**
   * The instance's `verify`, every phase included (its `around` observers too), for a feature that
   * checks, limits and counts an API key as the host's routes do: agent tokens' exchange
   * (`POST {basePath}/tokens`) and a protected resource's guard, and budgets' `reserve` (`verify`
   * with the hold as `cost`). Decided without a promise when no I/O was needed.
   */
  readonly verify: PendingVerify;
  /**
   * The instance's event bus (`bus/event-bus.ts`): publish what the feature does, subscribe to
   * what others publish (`key.*` events once committed, `webhook.*`, budgets' events…).
   */
  readonly bus: EventBus;
  /**
   * The event journal: each key change's events, written in the change's own atomic step, and
   * events written on their own (`append`: a leak report, a reveal, usage thresholds). Undefined
   * when no listed feature keeps one (`extends.journal`, which `events()` fills): write nothing then.
   */
  readonly events: EventRecorder | undefined;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** Where the feature reports what it handled and what a person should know about. */
  readonly log: FeatureLog;
  /**
   * What this instance's keys are: their format and hashing, scopes, tiers, fields, write hooks and
   * the types of their events.
   */
  readonly keyModel: KeyModel;
  /** The instance's limits and usage, as `verify` charges and counts them. */
  readonly limits: FeatureLimits;
  /**
   * The instance as an OpenAPI document describes it, and every listed feature's paths; for the
   * `openapi()` feature. Call it once the instance is built (not during `install`).
   */
  describe(): { instance: InstanceDescription; featurePaths: readonly PathBuilder[] };
}

export interface FeatureLog {
  /** The instance's logger (`config.logger`), for warnings: nothing logged may carry a secret. */
  readonly logger: KeywardLogger;
  /** A failure the feature answered for or that happened in the background: logged, and `onError`. */
  reportFailure(message: string, cause: unknown, request?: Request): void;
}

export interface KeyModel {
  /** Every configured environment's prefix; parses and checks tokens, gives hints. */
  readonly format: KeyFormat;
  readonly environments: Environments;
  /** A secret's hash, as the key store keeps it. */
  readonly hasher: SecretHasher;
  readonly scopes: ScopeRegistry;
  readonly tiers: TierLadder;
  /** The listed features' key fields (`keys/key-field.ts`). */
  readonly fields: readonly KeyField[];
  /** The listed features' write hooks (`keys/write-hooks.ts`), each list in the features' order. */
  readonly writes: Required<WriteHooks>;
  /**
   * The event types a key's events may have: the kernel's and the listed features' declared ones
   * (`event-model/event-types.ts`), for a feature that filters or routes events by type.
   */
  readonly eventTypes: EventTypes;
}

export interface FeatureLimits {
  /** Applies a request's layers (owner allowance, quota, credits); undefined when the store cannot. */
  readonly layered: LayeredLimiter | undefined;
  /** Counts keys' usage, buffered; `flush()` writes what it holds. */
  readonly usage: UsageRecorder;
  /** Records the account tier an owner was seen with on the owner's keys. */
  readonly accountTiers: AccountTierSync;
}
