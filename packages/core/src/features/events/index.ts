/**
 * `@keyward/core/events`: the audit log as a feature module. Listed, every key change (created,
 * rotated, updated, disabled, enabled, revoked) is written with its events in the same atomic step,
 * kept `retainDays` (default 90), listed by `keyward.events.list` and
 * `GET {basePath}/{key_id}/events`, and passed to `onEvent` once committed; keys coming within a
 * week of their expiry get `key.expiring`, and quotas and credits their usage events. The key store
 * must be able to write events (memory, PostgreSQL, Redis). See docs/events.md.
 *
 * @example
 * import { events } from "@keyward/core/events";
 * createKeyward({ store, scopes, tiers, jwt, features: [events({ retainDays: 30, onEvent: (event) => queue.push(event) })] });
 */
import type { KeywardFeature, StoreRequirement } from "../../feature-interface/feature.js";
import { createEventsApi, type EventsApi } from "./events-api.js";
import { checkEventsConfig, type EventsConfig } from "./events-config.js";
import { type EventsRuntime, eventsRuntime } from "./events-runtime.js";
import { keyEventsEndpoint } from "./key-events-endpoint.js";
import { usageEventsStep } from "./usage-events-step.js";

export type { OnEvent } from "./event-hook.js";
export type { EventListOptions, EventPage, EventsApi } from "./events-api.js";
export type { EventsConfig, ExpiringEventsConfig } from "./events-config.js";

const writesEvents: StoreRequirement = {
  has: (store) => store.events !== undefined,
  missing:
    "a store whose key store writes events together with its changes (its `events` part, from the same store as `keys`): memoryStore(), postgresStore() or redisStore({ keys: true }), with migrations applied",
};

/** Asked for explicitly: a store that cannot list expiring keys would silently write none. */
const listsExpiring: StoreRequirement = {
  has: (store) => typeof store.keys.listExpiring === "function",
  missing:
    "a key store that lists expiring keys (`keys.listExpiring`) for `expiring`: memoryStore(), postgresStore() or redisStore(); or `expiring: false`",
};

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function events(config: EventsConfig = {}): KeywardFeature<"events", EventsApi> {
  checkEventsConfig(config);
  return {
    name: "events",
    requires: typeof config.expiring === "object" ? [writesEvents, listsExpiring] : [writesEvents],
    extends: {
      journal: (kernel) => eventsRuntime(config, kernel.log, kernel),
      verify: { spent: [usageEventsStep] },
    },
    install: ({ events, keys, keyModel }) => {
      // The recorder `extends` built for this instance, before any feature was installed.
      const api = createEventsApi(events as EventsRuntime, keys, keyModel.eventTypes);
      return {
        api,
        endpoints: [{ path: "/{key_id}/events", method: "GET", handle: keyEventsEndpoint(api) }],
      };
    },
  };
}
