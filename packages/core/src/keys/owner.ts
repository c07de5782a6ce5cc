/**
 * Who a key belongs to. A user's keys are theirs alone; an organization's keys belong to the
 * organization and outlive the member who made them (`createdBy`).
 */
export type OwnerType = "user" | "organization";

export interface Owner {
  type: OwnerType;
  id: string;
}

/** The owner of a user's own keys: what a plain owner id (a JWT's `sub`) has always meant. */
export function userOwner(id: string): Owner {
  return { type: "user", id };
}

/**
 * A plain string is a user id, as in every API before organizations existed. Anything else that
 * is not an object is taken as a (bad) user id too, so the owner-id check names what is wrong.
 */
export function toOwner(owner: string | Owner): Owner {
  return typeof owner === "object" && owner !== null ? owner : userOwner(owner);
}

/** The owner of a stored key, from its flat storage fields. */
export function ownerOfKey(key: { ownerType: OwnerType; ownerId: string }): Owner {
  return { type: key.ownerType, id: key.ownerId };
}

export function isOwnedBy(key: { ownerType: OwnerType; ownerId: string }, owner: Owner): boolean {
  return key.ownerType === owner.type && key.ownerId === owner.id;
}

/** `user:<id>` or `organization:<id>`: one string per owner, for maps and log lines. */
export function ownerLabel(owner: Owner): string {
  return `${owner.type}:${owner.id}`;
}
