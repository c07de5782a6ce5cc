import type { JwtClaims } from "../auth/jwt.js";
import { KeywardError } from "../errors/keyward-error.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import {
  defaultOrganizationRoles,
  type Membership,
  type OrganizationAction,
  type OrganizationsConfig,
} from "./membership.js";

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
}

/**
 * Decides what a signed-in user may do with an organization's keys. Built once from the config;
 * the host's `memberships` is asked per call, so a membership that ends takes effect at once.
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

export function organizationAccess(
  config: OrganizationsConfig,
  tiers: TierLadder,
): OrganizationAccess {
  const roles = {
    manage: new Set(config.roles?.manage ?? defaultOrganizationRoles.manage),
    read: new Set(config.roles?.read ?? defaultOrganizationRoles.read),
  };

  return {
    async require(claims, organizationId, action, notMember) {
      const membership = findMembership(await config.memberships(claims), organizationId);
      if (!membership) {
        throw notMember === "not_member"
          ? new KeywardError("not_member", "Not a member of this organization")
          : new KeywardError("not_owner", "Not permitted to access this API key");
      }
      if (!roles[action].has(membership.role)) {
        throw new KeywardError(
          "role_not_permitted",
          "Your role in the organization does not permit this action",
        );
      }
      return {
        organizationId,
        role: membership.role,
        tier: statesTier(membership) ? tiers.resolveAccountTier(membership.tier) : undefined,
      };
    },
  };
}

/**
 * The membership for one organization. What the host returns comes from claims, which a token
 * issuer may shape loosely: entries that are not well-formed memberships are skipped rather than
 * trusted, and a throw from the host surfaces as a 500 through the caller.
 */
function findMembership(list: unknown, organizationId: string): Membership | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    if (
      entry !== null &&
      typeof entry === "object" &&
      (entry as Membership).id === organizationId &&
      typeof (entry as Membership).role === "string"
    ) {
      return entry as Membership;
    }
  }
  return undefined;
}

/** Whether the host's membership names a tier at all (`tier` may be missing from loose claims). */
function statesTier(membership: Membership): boolean {
  return typeof membership.tier === "string" && membership.tier !== "";
}
