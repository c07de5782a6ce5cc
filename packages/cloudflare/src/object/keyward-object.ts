/**
 * `KeywardObject`: the Durable Object class behind `cloudflareStore`. Export it from your Worker
 * and bind it (docs/cloudflare.md):
 *
 *   export { KeywardObject } from "@keyward/cloudflare";
 *
 *   [[durable_objects.bindings]]
 *   name = "KEYWARD"
 *   class_name = "KeywardObject"
 *   [[migrations]]
 *   tag = "v1"
 *   new_sqlite_classes = ["KeywardObject"]
 *
 * One class plays every role (`protocol/object-names.ts`); each object creates its tables on first
 * start and keeps everything in its SQLite storage, so its state survives eviction and restarts.
 * Calls arrive one at a time (a Durable Object is single-threaded) and each runs synchronously
 * inside one storage transaction: atomic, and all-or-nothing when it throws.
 */
import type { StoredKey } from "@keyward/core";
import { ownerLabel } from "@keyward/core/toolkit";
import {
  type ObjectNamespace,
  objectAnswer,
  objectRefusal,
  readObjectCall,
} from "../protocol/object-call.js";
import type { DurableObjectState } from "./durable-object-state.js";
import { eventTable, eventTableSchema } from "./event-table.js";
import { holdExpiry } from "./hold-expiry.js";
import { holdTable, holdTableSchema } from "./hold-table.js";
import { keyTable, keyTableSchema } from "./key-table.js";
import { limitTable, limitTableSchema } from "./limit-table.js";
import { usageTable, usageTableSchema } from "./usage-table.js";
import { pushTargets, versionPushes, versionPushSchema } from "./version-pushes.js";

/**
 * The binding the object reaches its siblings through (to tell limit objects of a key's change):
 * `KEYWARD`, or the binding named by the Worker's `KEYWARD_OBJECT_BINDING` variable.
 */
const defaultBinding = "KEYWARD";

const metaSchema = "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);";

/** First retry of an undelivered push, doubled up to the last. */
const retryMs = { first: 500, last: 60_000 };

type Method = (...args: never[]) => unknown;

export class KeywardObject {
  readonly #state: DurableObjectState;
  readonly #env: Record<string, unknown>;
  readonly #methods: Record<string, Method>;
  readonly #pushes: ReturnType<typeof versionPushes>;
  readonly #holdExpiry: ReturnType<typeof holdExpiry>;
  #retryMs = retryMs.first;
  /** The prefix last written to `meta`, so that a call writes it only when it changes. */
  #knownPrefix: string | undefined;

  constructor(state: DurableObjectState, env: Record<string, unknown>) {
    this.#state = state;
    this.#env = env;
    const { sql } = state.storage;
    sql.exec(
      metaSchema +
        keyTableSchema +
        eventTableSchema +
        usageTableSchema +
        limitTableSchema +
        versionPushSchema +
        holdTableSchema,
    );
    const pushes = versionPushes(sql);
    this.#pushes = pushes;
    const events = eventTable(sql);
    const keys = keyTable(sql, {
      recordEvents: (changeEvents) => events.record(changeEvents),
      changed: (key: StoredKey) => {
        const owner = ownerLabel({ type: key.ownerType, id: key.ownerId });
        pushes.note(pushTargets(this.#prefix(), owner, key.id), key.id, key.version);
      },
    });
    const usage = usageTable(sql);
    const limits = limitTable(sql);
    const holds = holdTable(sql);
    this.#holdExpiry = holdExpiry(holds, state.storage);
    const prefixed = <T extends object>(name: string, table: T) =>
      Object.fromEntries(Object.entries(table).map(([method, fn]) => [`${name}.${method}`, fn]));
    this.#methods = {
      ...prefixed("keys", keys),
      ...prefixed("events", { list: events.list, prune: events.prune, append: events.append }),
      ...prefixed("outbox", {
        dispatch: events.dispatch,
        claim: events.claim,
        settle: events.settle,
        list: events.listDeliveries,
        redeliver: events.redeliver,
      }),
      ...prefixed("usage", usage),
      ...prefixed("limits", limits),
      ...prefixed("holds", {
        put: holds.put,
        take: holds.take,
        expired: holds.expired,
        heldBy: holds.heldBy,
      }),
      dump: () => dumpTables(state),
    } as Record<string, Method>;
  }

  /** The store's `prefix`, which the object's own name starts with: told with every call. */
  #prefix(): string {
    return (
      this.#knownPrefix ??
      this.#state.storage.sql
        .exec<{ value: string }>("SELECT value FROM meta WHERE name = 'prefix'")
        .toArray()[0]?.value ??
      ""
    );
  }

  #namespace(): ObjectNamespace {
    const name = (this.#env.KEYWARD_OBJECT_BINDING as string | undefined) ?? defaultBinding;
    const namespace = this.#env[name] as ObjectNamespace | undefined;
    if (typeof namespace?.idFromName !== "function") {
      throw new Error(
        `KeywardObject: the Worker has no Durable Object binding ${name} of this class; bind it as ${name}, or name the binding in the KEYWARD_OBJECT_BINDING variable`,
      );
    }
    return namespace;
  }

  async fetch(request: Request): Promise<Response> {
    const call = await readObjectCall(request);
    if ("refused" in call) return objectRefusal(call.refused);
    // Own methods only: a name such as `toString` or `constructor` is no method of the object's.
    const method = Object.hasOwn(this.#methods, call.method)
      ? this.#methods[call.method]
      : undefined;
    if (method === undefined) {
      return objectRefusal(
        `KeywardObject has no method ${JSON.stringify(call.method.slice(0, 64))}`,
      );
    }
    const prefix = new URL(request.url).searchParams.get("prefix") ?? "";
    let result: unknown;
    try {
      const { storage } = this.#state;
      const changesKeys = call.method.startsWith("keys.");
      // A change must reach the limit objects: refused before anything is written when it cannot.
      if (changesKeys) this.#namespace();
      const knownPrefix = this.#knownPrefix;
      result = storage.transactionSync(() => {
        if (prefix !== knownPrefix) {
          storage.sql.exec(
            "INSERT INTO meta (name, value) VALUES ('prefix', ?1) ON CONFLICT (name) DO UPDATE SET value = ?1",
            prefix,
          );
        }
        return method(...(call.args as never[]));
      });
      this.#knownPrefix = prefix;
    } catch (error) {
      return objectRefusal(error instanceof Error ? error.message : String(error));
    }
    if (this.#pushes.pending()) await this.#deliverPushes();
    // A hold put with its alarm asked for (`releaseHoldsAtTtl`): wake no later than it expires.
    if (call.method === "holds.put" && call.args[1] === true) await this.#holdExpiry.schedule();
    return objectAnswer(result);
  }

  /**
   * Retries the pushes that could not be delivered, with a growing delay while they fail; releases
   * the holds past their TTL (`hold-expiry.ts`), and wakes again for the next.
   */
  async alarm(): Promise<void> {
    if (this.#pushes.pending()) await this.#deliverPushes();
    await this.#holdExpiry.release(this.#namespace(), this.#prefix(), Date.now());
    await this.#holdExpiry.schedule();
  }

  async #deliverPushes(): Promise<void> {
    const failed = await this.#pushes.deliver(this.#namespace());
    if (failed === 0) {
      this.#retryMs = retryMs.first;
      return;
    }
    await this.#state.storage.setAlarm(Date.now() + this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, retryMs.last);
  }
}

/** Every row of every table, for the conformance suite's probe, which looks for secrets in it. */
function dumpTables(state: DurableObjectState): Record<string, unknown[]> {
  const { sql } = state.storage;
  const tables = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    )
    .toArray();
  return Object.fromEntries(
    tables.map(({ name }) => [name, sql.exec(`SELECT * FROM "${name}"`).toArray()]),
  );
}
