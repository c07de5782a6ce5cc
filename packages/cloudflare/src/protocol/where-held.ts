/**
 * Calls that carry no layer of the key's own rate limit (budgets' give-backs, usage reads of
 * credits and budgets) go to the object where those layers are counted. With limits per key
 * (`limitObjects: "key"`) a key's credits and budgets are counted in its own object, unless its
 * requests also carry a layer its owner shares (then in the owner's, beside that layer); such a
 * call's layers alone cannot tell which (a give-back carries only the layers still in their
 * period). So it is offered to the key's object first, which answers it only if it holds state of
 * any of its buckets (a bucket charged there has a row; credits never expire), and otherwise goes
 * to the owner's object, which answers it either way.
 */
import type { LimitLayer } from "@keyward/core";
import { keyObjectName, ownerObjectName } from "./object-names.js";

/** Calls `method` on the object named `object`. */
export type CallNamed = <T>(object: string, method: string, ...args: unknown[]) => Promise<T>;

/** An answer from an object that may not hold the call's layers. */
export type WhereHeldAnswer<T> = { decision: T } | { elsewhere: true };

export interface WhereHeld {
  prefix: string;
  /** The owner the layers are charged to (`ownerLimitKey`). */
  owner: string;
  /** The key whose object may hold them; undefined: the owner's, for certain. */
  keyId: string | undefined;
}

/** `method(...args, whereHeld)` on the key's object if it holds the layers, else the owner's. */
export async function callWhereHeld<T>(
  call: CallNamed,
  { prefix, owner, keyId }: WhereHeld,
  method: string,
  ...args: unknown[]
): Promise<T> {
  if (keyId !== undefined) {
    const answer = await call<WhereHeldAnswer<T>>(
      keyObjectName(prefix, keyId),
      method,
      ...args,
      true,
    );
    if ("decision" in answer) return answer.decision;
  }
  const answer = await call<WhereHeldAnswer<T>>(
    ownerObjectName(prefix, owner),
    method,
    ...args,
    false,
  );
  if (!("decision" in answer)) throw new Error(`KeywardObject: ${method} was not answered`);
  return answer.decision;
}

/** Whether a layered call is a give-back: credits layers only, each with a negative cost. */
export function isGiveBack(layers: readonly LimitLayer[]): boolean {
  return layers.length > 0 && layers.every((layer) => layer.layer === "credits" && layer.cost < 0);
}
