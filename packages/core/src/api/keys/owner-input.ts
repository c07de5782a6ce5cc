/**
 * Owners as the host's own code names them. A bad one is the host's bug, so it is a `TypeError`
 * thrown before any store is asked (on the HTTP path the same rule refuses a JWT's `sub` with 401
 * before any of this runs).
 */
import { type Owner, toOwner } from "../../keys/owner.js";
import { ownerIdProblem } from "../../validation/owner-id.js";
import { MisuseError } from "./key-errors.js";

/** Who a key is for: a user's id (a JWT's `sub`), or an owner, which may be an organization. */
export type OwnerInput = string | Owner;

/** An owner the host's code gave, checked. */
export function checkedOwner(input: OwnerInput): Owner {
  const owner = toOwner(input);
  requireOwner(owner);
  return owner;
}

export function requireOwner(owner: Owner): void {
  if (
    owner === null ||
    typeof owner !== "object" ||
    (owner.type !== "user" && owner.type !== "organization")
  ) {
    throw new MisuseError(
      'Keyward: an owner is a user id, or { type: "user" | "organization", id: string }',
    );
  }
  requireOwnerId(owner.id, owner.type === "user" ? "ownerId" : "organization id");
}

export function requireOwnerId(id: string, what: string): void {
  const problem = ownerIdProblem(id);
  if (problem) {
    throw new MisuseError(
      `Keyward: ${what} ${problem}; it must be a non-empty string of at most 255 characters without control characters`,
    );
  }
}
