import type { JwtClaims } from "../../auth/jwt.js";
import { kindOf } from "../../keyward/kind-of.js";

/** A user's place in one organization, as the host's `organizations.memberships` reports it. */
export interface Membership {
  /** The organization's id: the owner id of its keys. */
  id: string;
  /** The user's role in it; which roles may do what is `organizations.roles`. */
  role: string;
  /**
   * The organization's account tier: its keys may not be above it. Unknown → lowest tier. Omit it
   * when the claims do not know the plan: the tier recorded with the organization's keys (by an
   * earlier membership that stated one, or `keys.setAccountTier`) then stands.
   */
  tier?: string;
}

/** What `organizations()` takes. */
export interface OrganizationsConfig {
  /**
   * The organizations the signed-in user belongs to, from their claims (a JWT's, or those the
   * `session` hook returned). Asked on every key-management call that names an organization or
   * acts on an organization's key; keep it cheap, or cache it yourself.
   * @example
   * memberships: (claims) => Array.isArray(claims.orgs) ? claims.orgs : [],
   */
  memberships(claims: JwtClaims): readonly Membership[] | Promise<readonly Membership[]>;
  /**
   * Roles that may act: `manage` creates, rotates and revokes an organization's keys; `read` lists
   * them and reads their usage. Default `{ manage: ["owner", "admin"], read: ["owner", "admin",
   * "member"] }`. A manage role does not imply read: list it in both.
   */
  roles?: OrganizationRoles;
}

/**
 * Which roles may act (`manage`, `read`: lists of role names), and, by role name, the scopes a role
 * may grant: `{ member: { grants: ["profile:read"] } }` lets a member create, change and rotate
 * only keys within those scopes (403 `scope_not_grantable` otherwise). A role without `grants`
 * grants any scope. Roles named `manage` or `read` cannot be capped (those names are the lists).
 */
export type OrganizationRoles = {
  manage?: readonly string[];
  read?: readonly string[];
} & { [role: string]: readonly string[] | RoleGrants | undefined };

/** What one role may grant. */
export interface RoleGrants {
  /** The scopes a key this role creates, changes or rotates may hold; at least one. */
  grants: readonly string[];
}

export const defaultOrganizationRoles = {
  manage: ["owner", "admin"],
  read: ["owner", "admin", "member"],
} as const;

/** Throws a `TypeError` naming the field for anything `organizations()` should not take. */
export function checkOrganizationsConfig(config: unknown): void {
  const candidate = config as OrganizationsConfig | null | undefined;
  if (typeof candidate !== "object" || candidate === null) {
    throw new TypeError(
      "Keyward: organizations() takes an object like { memberships: (claims) => [{ id, role, tier }] }",
    );
  }
  if (typeof candidate.memberships !== "function") {
    throw new TypeError(
      `Keyward: \`organizations.memberships\` must be a function, got ${kindOf(candidate.memberships)}`,
    );
  }
  for (const [role, entry] of Object.entries(candidate.roles ?? {})) {
    if (role === "manage" || role === "read" || entry === undefined) continue;
    const grants = (entry as RoleGrants | null)?.grants;
    if (
      typeof entry !== "object" ||
      entry === null ||
      Array.isArray(entry) ||
      !Array.isArray(grants) ||
      grants.length === 0 ||
      !grants.every((scope) => typeof scope === "string" && scope !== "")
    ) {
      throw new TypeError(
        `Keyward: \`organizations.roles.${role}\` must be { grants: [scope, ...] } with at least one scope, got ${kindOf(entry)}`,
      );
    }
  }
  for (const action of ["manage", "read"] as const) {
    const roles = candidate.roles?.[action];
    if (
      roles !== undefined &&
      !(Array.isArray(roles) && roles.every((role) => typeof role === "string" && role !== ""))
    ) {
      throw new TypeError(
        `Keyward: \`organizations.roles.${action}\` must be a list of role names, got ${kindOf(roles)}`,
      );
    }
  }
}
