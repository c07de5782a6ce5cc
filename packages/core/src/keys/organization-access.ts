import type { JwtClaims } from "../auth/jwt.js";

/** What a role may do with an organization's keys. */
export type OrganizationAction = "manage" | "read";

/** The caller's membership in one organization, once their role was checked for an action. */
export interface CheckedMembership {
  organizationId: string;
  role: string;
  /**
   * The organization's tier as the membership states it, resolved against the configured ladder
   * (an unknown name → lowest); undefined when the membership states none. A membership without a
   * tier says nothing about the organization's plan: it is never taken for the lowest tier, never
   * recorded, and the tier recorded on the organization's keys stands.
   */
  tier: string | undefined;
  /**
   * The scopes this role may grant (`roles: { member: { grants } }`): a key it creates, changes or
   * rotates may hold no other (403 `scope_not_grantable`). Undefined: the role grants any scope.
   */
  grants?: readonly string[];
}

/**
 * Decides what a signed-in user may do with an organization's keys: the kernel's extension point
 * for the `organizations()` feature. Without it, no one may act on an organization's key.
 */
export interface OrganizationAccess {
  /**
   * The caller's membership, if their role permits `action`. Not a member → 403 `notMember`
   * (`not_member` when the caller named the organization, `not_owner` when they named a key of
   * it: an outsider learns nothing about whose key it is); a role that may not act → 403
   * `role_not_permitted`.
   */
  require(
    claims: JwtClaims,
    organizationId: string,
    action: OrganizationAction,
    notMember: "not_member" | "not_owner",
  ): Promise<CheckedMembership>;
}
