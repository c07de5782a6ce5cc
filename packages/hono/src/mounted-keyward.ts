import type { Keyward } from "@keyward/core";
import type { Context } from "hono";
import type { ClientAddressResolver } from "./client-address.js";

/** What `keyward()` leaves for the guards further down the same request. */
export interface MountedKeyward {
  keyward: Keyward;
  clientIp: ClientAddressResolver;
}

// Keyed by Hono's per-request Context, not by a Variables name: the instance is an internal hand-off
// between this package's middleware, not something routes should read or a host could overwrite.
const mounted = new WeakMap<Context, MountedKeyward>();

export function mountKeyward(c: Context, value: MountedKeyward): void {
  mounted.set(c, value);
}

export function mountedKeyward(c: Context): MountedKeyward | undefined {
  return mounted.get(c);
}
