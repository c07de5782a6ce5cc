/**
 * `@keyward/core/organizations`: keys owned by organizations, as a feature module. Listed, `POST`
 * takes `organizationId`, `GET ?organizationId=` lists an organization's keys, an organization's
 * key records carry `owner` and `createdBy`, and what a member may do follows their role:
 * `memberships(claims)` says which organizations a signed-in user belongs to, with their role and
 * the organization's tier; `roles` which roles may manage (create, rotate, revoke) and read (list,
 * usage) an organization's keys. See docs/organizations.md.
 *
 * @example
 * import { organizations } from "@keyward/core/organizations";
 * createKeyward({ store, scopes, tiers, jwt, features: [organizations({ memberships: (claims) => (Array.isArray(claims.orgs) ? claims.orgs : []) })] });
 */
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { checkOrganizationsConfig, type OrganizationsConfig } from "./membership.js";
import { organizationAccess } from "./organization-access.js";

export type { OrganizationAction } from "../../keys/organization-access.js";
export type {
  Membership,
  OrganizationRoles,
  OrganizationsConfig,
  RoleGrants,
} from "./membership.js";

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function organizations(config: OrganizationsConfig): KeywardFeature<"organizations"> {
  checkOrganizationsConfig(config);
  return {
    name: "organizations",
    extends: { access: ({ tiers, scopes }) => organizationAccess(config, tiers, scopes) },
    install: () => ({}),
  };
}
