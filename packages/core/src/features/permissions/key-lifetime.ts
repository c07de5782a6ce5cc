import type { Owner } from "../../keys/owner.js";

/**
 * The longest a new key may live, in milliseconds, for the key being created (its tier, its owner),
 * or undefined for no cap: the kernel's extension point for `permissions({ maxLifetime })`. With a
 * cap, create requires an expiry within it and gives a key created without one the cap.
 */
export type KeyLifetimePolicy = (key: { tier: string; owner: Owner }) => number | undefined;
