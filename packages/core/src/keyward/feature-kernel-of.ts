/**
 * The facade each feature is installed with (`FeatureKernel`, `feature-interface/feature-kernel.ts`), made
 * from the kernel's context: the parts a feature may use, never the context itself.
 */
import type { InternalKeysApi } from "../api/keys-api.js";
import type { PendingVerify } from "../auth/pending-verify.js";
import type { EventBus } from "../bus/event-bus.js";
import type { EventTypes } from "../event-model/event-types.js";
import type { FeatureKernel } from "../feature-interface/feature-kernel.js";
import type { KeywardStore } from "../storage/index.js";
import type { KeywardContext } from "./context.js";

export function featureKernelOf(
  context: KeywardContext,
  instance: Pick<FeatureKernel, "basePath" | "describe"> & {
    store: KeywardStore;
    keys: InternalKeysApi;
    bus: EventBus;
    verify: PendingVerify;
    /** The kernel's event types and the listed features' (`eventTypesOf`). */
    eventTypes: EventTypes;
  },
): FeatureKernel {
  return {
    basePath: instance.basePath,
    store: instance.store,
    keys: instance.keys,
    verify: instance.verify,
    bus: instance.bus,
    events: context.events,
    clock: context.clock,
    random: context.random,
    log: { logger: context.logger, reportFailure: context.reportFailure },
    keyModel: {
      format: context.format,
      environments: context.environments,
      hasher: context.hasher,
      scopes: context.scopes,
      tiers: context.tiers,
      fields: context.keyFields,
      writes: context.writes,
      eventTypes: instance.eventTypes,
    },
    limits: {
      layered: context.layeredLimits,
      usage: context.usageRecorder,
      accountTiers: context.accountTiers,
    },
    describe: instance.describe,
  };
}
