/**
 * The audit log: `keyward.events.list` for the host's own code, and the steps of
 * `GET {basePath}/{key_id}/events`, which checks the caller as the usage endpoint does.
 */

import type { Caller } from "../../api/key-api-types.js";
import type { OwnerInput } from "../../api/keys/owner-input.js";
import type { InternalKeysApi } from "../../api/keys-api.js";
import { decodeListCursor, pageOf, parsePageSize } from "../../api/list-cursor.js";
import { internalError, KeywardError } from "../../errors/keyward-error.js";
import { type EventType, type KeywardEvent, toKeywardEvent } from "../../event-model/event.js";
import { isEventId } from "../../event-model/event-id.js";
import type { EventTypes } from "../../event-model/event-types.js";
import type { Owner } from "../../keys/owner.js";
import type { EventsRuntime } from "./events-runtime.js";

/** Events per page when no `limit` is given. */
export const defaultEventPageSize = 100;

export interface EventListOptions {
  /** Whose events: a user id, or `{ type: "organization", id }`. */
  owner: OwnerInput;
  /** Only this key's events; the key must be the owner's (404 unknown, 403 another owner's). */
  keyId?: string;
  /**
   * Only these types (the kernel's, or one a listed feature writes to the audit log, like
   * `token.issued`); omitted: every type.
   */
  types?: EventType[];
  /** The `nextCursor` of the previous page; omitted for the first. */
  after?: string | null;
  /** Events per page, 1 to 1,000; default 100. */
  limit?: number;
}

/** One page of the audit log, newest first, and where the next one starts (null after the last). */
export interface EventPage {
  data: KeywardEvent[];
  nextCursor: string | null;
}

export interface EventsApi {
  /**
   * The audit log, newest first: an owner's events, or one key's.
   * @example
   * const { data, nextCursor } = await keyward.events.list({ owner: userId, keyId, limit: 20 });
   */
  list(options: EventListOptions): Promise<EventPage>;
  /**
   * Deletes events older than `events.retainDays` now, for hosts that prune on a schedule of their
   * own (`pruneIntervalMs: false`). Resolves with how many were deleted.
   */
  prune(): Promise<{ pruned: number }>;
  /**
   * Looks for keys that expire within `events.expiring.leadTimeMs` now and writes their
   * `key.expiring` (each key and expiry once, across instances), for hosts that scan on a schedule
   * of their own (`expiring: { scanIntervalMs: false }`, a cron job, a scheduled Worker). Resolves
   * with how many events this call wrote. Throws a `TypeError` with `expiring: false`.
   * @example
   * export default { scheduled: () => keyward.events.scanExpiring() };
   */
  scanExpiring(): Promise<{ written: number }>;
}

/** The endpoint's query, as text from the URL. */
export interface EventQueryText {
  limit: string | null;
  cursor: string | null;
  types: string[];
}

export interface InternalEventsApi extends EventsApi {
  /** `GET {basePath}/{key_id}/events`: the key's events, when the caller may read its usage. */
  forCaller(caller: Caller, keyId: string, query: EventQueryText): Promise<EventPage>;
}

/** @param types the instance's event types: the filter takes those the audit log may hold */
export function createEventsApi(
  events: EventsRuntime,
  keys: InternalKeysApi,
  types: EventTypes,
): InternalEventsApi {
  const page = async (
    events: EventsRuntime,
    query: { owner: Owner; keyId?: string; types?: readonly EventType[] },
    limit: number,
    after: string | null | undefined,
  ): Promise<EventPage> => {
    // The keys listing's cursor format, a time and an id, read here as `occurredAt` and event id.
    const position =
      after === undefined || after === null ? undefined : decodeListCursor(after, isEventId);
    events.start();
    let found: Awaited<ReturnType<EventsRuntime["log"]["list"]>>;
    try {
      // One more than the page: whether it exists says if there is a next page, without a count.
      found = await events.log.list({
        ...query,
        limit: limit + 1,
        ...(position ? { after: { occurredAt: position.createdAt, id: position.id } } : {}),
      });
    } catch (error) {
      throw internalError(error);
    }
    return pageOf(found, limit, toKeywardEvent);
  };

  return {
    async list(options) {
      if (typeof options !== "object" || options === null) {
        throw new TypeError("Keyward: events.list takes { owner, keyId?, types?, after?, limit? }");
      }
      const owner = keys.access.owner(options.owner);
      const limit = parsePageSize(options.limit ?? defaultEventPageSize);
      const only = options.types === undefined ? undefined : checkedTypes(options.types, types);
      if (options.keyId !== undefined) await keys.access.owned(owner, options.keyId);
      return page(
        events,
        {
          owner,
          ...(options.keyId === undefined ? {} : { keyId: options.keyId }),
          ...(only ? { types: only } : {}),
        },
        limit,
        options.after,
      );
    },

    async prune() {
      try {
        return { pruned: await events.retention.prune() };
      } catch (error) {
        throw internalError(error);
      }
    },

    async scanExpiring() {
      const expiry = events.expiry;
      if (!expiry) {
        throw new TypeError(
          "Keyward: `key.expiring` is off (`expiring: false` in events()); remove that option to scan for expiring keys",
        );
      }
      try {
        return { written: await expiry.scan() };
      } catch (error) {
        throw internalError(error);
      }
    },

    async forCaller(caller, keyId, query) {
      // Query problems first (422, all at once), then the key (404, 403), as on every endpoint.
      const problems: KeywardError[] = [];
      const attempt = <T>(work: () => T): T | undefined => {
        try {
          return work();
        } catch (error) {
          if (!(error instanceof KeywardError)) throw error;
          problems.push(error);
          return undefined;
        }
      };
      const limit =
        query.limit === null ? defaultEventPageSize : attempt(() => parsePageSize(query.limit));
      const only =
        query.types.length === 0 ? undefined : attempt(() => checkedTypes(query.types, types));
      if (query.cursor !== null) attempt(() => decodeListCursor(query.cursor as string, isEventId));
      if (problems.length > 0) {
        const issues = problems.flatMap((problem) =>
          Array.isArray(problem.detail) ? problem.detail : [],
        );
        throw new KeywardError("validation_failed", issues);
      }
      const key = await keys.access.readable(caller, keyId);
      return page(
        events,
        {
          owner: { type: key.ownerType, id: key.ownerId },
          keyId: key.id,
          ...(only ? { types: only } : {}),
        },
        limit as number,
        query.cursor,
      );
    },
  };
}

/**
 * The types asked for, or a 422 at `["query", "types", i]` for each one the audit log cannot
 * hold: unknown to the instance, or published on its bus only.
 */
function checkedTypes(asked: unknown, types: EventTypes): EventType[] {
  const list: unknown[] = Array.isArray(asked) ? asked : [asked];
  const issues = list.flatMap((type, index) =>
    types.audits(type)
      ? []
      : [
          {
            loc: ["query", "types", index],
            msg: types.busOnly(type)
              ? `Input should be one of the event types: ${types.audited.join(", ")} (${String(type)} is published on the instance's bus only, never written to the audit log)`
              : `Input should be one of the event types: ${types.audited.join(", ")}`,
            type: "literal_error",
          },
        ],
  );
  if (issues.length > 0 || list.length === 0) {
    throw new KeywardError(
      "validation_failed",
      issues.length > 0
        ? issues
        : [{ loc: ["query", "types"], msg: "List should have at least 1 item", type: "too_short" }],
    );
  }
  return [...new Set(list as EventType[])];
}
