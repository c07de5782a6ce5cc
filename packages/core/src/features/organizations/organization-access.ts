import { KeywardError } from "../../errors/keyward-error.js";
import type { OrganizationAccess } from "../../keys/organization-access.js";
import type { ScopeRegistry } from "../../scopes/scope-registry.js";
import type { TierLadder } from "../../tiers/tier-ladder.js";
import {
  defaultOrganizationRoles,
  type Membership,
  type OrganizationsConfig,
  type RoleGrants,
} from "./membership.js";

export function organizationAccess(
  config: OrganizationsConfig,
  tiers: TierLadder,
  scopes: ScopeRegistry,
): OrganizationAccess {
  const roles = {
    manage: new Set(config.roles?.manage ?? defaultOrganizationRoles.manage),
    read: new Set(config.roles?.read ?? defaultOrganizationRoles.read),
  };
  const grantsByRole = roleGrants(config, scopes);

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
      const grants = grantsByRole.get(membership.role);
      return {
        organizationId,
        role: membership.role,
        tier: statesTier(membership) ? tiers.resolveAccountTier(membership.tier) : undefined,
        ...(grants === undefined ? {} : { grants }),
      };
    },
  };
}

/**
 * The scopes each capped role may grant. A grant of a scope that is not configured is a mistake
 * that would silently grant nothing: a `TypeError` at `createKeyward`, naming it.
 */
function roleGrants(
  config: OrganizationsConfig,
  scopes: ScopeRegistry,
): ReadonlyMap<string, readonly string[]> {
  const grants = new Map<string, readonly string[]>();
  for (const [role, entry] of Object.entries(config.roles ?? {})) {
    if (role === "manage" || role === "read" || entry === undefined || Array.isArray(entry)) {
      continue;
    }
    const list = (entry as RoleGrants).grants;
    const unknown = list.filter((scope) => !scopes.has(scope));
    if (unknown.length > 0) {
      throw new TypeError(
        `Keyward: \`organizations.roles.${role}.grants\` names ${unknown.map((scope) => JSON.stringify(scope)).join(", ")}, not a configured scope; configured: ${scopes.names.join(", ")}`,
      );
    }
    grants.set(role, Object.freeze([...list]));
  }
  return grants;
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
