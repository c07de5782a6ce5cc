import type { JwtClaims, Membership } from "@keyward/core";

/**
 * The demo's organization memberships: the JWT claim `orgs: [{ "id", "role", "tier" }]` (DESIGN,
 * "Demo contract, v0.2"). A token without it belongs to no organization. Keyward skips entries
 * that are not well-formed, so the claim is passed on as the token carries it.
 */
export function organizationsClaim(claims: JwtClaims): readonly Membership[] {
  return Array.isArray(claims.orgs) ? (claims.orgs as Membership[]) : [];
}
