/**
 * What a session JWT says about the person, read (not verified: the server verifies) so the
 * component can offer only what the server would accept: the account's `tier` and the
 * organizations in the `orgs` claim (`[{ id, role, tier }]`, the convention of Keyward's demo and
 * conformance suite). A host whose tokens say it otherwise, or are not JWTs, sets the element's
 * `accountTier` and `organizations` instead, which win.
 */
import type { OrganizationMembership } from "./types.js";

export interface SessionClaims {
  tier?: string;
  organizations: OrganizationMembership[];
}

export function readSessionClaims(token: string | undefined): SessionClaims {
  const payload = jwtPayload(token);
  const tier = typeof payload?.tier === "string" && payload.tier ? payload.tier : undefined;
  const organizations = Array.isArray(payload?.orgs)
    ? payload.orgs.filter(isMembership).map(({ id, role, tier: orgTier }) => ({
        id,
        ...(typeof role === "string" ? { role } : {}),
        ...(typeof orgTier === "string" ? { tier: orgTier } : {}),
      }))
    : [];
  return { ...(tier ? { tier } : {}), organizations };
}

function isMembership(value: unknown): value is { id: string; role?: unknown; tier?: unknown } {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" && id.length > 0;
}

function jwtPayload(token: string | undefined): Record<string, unknown> | undefined {
  const part = token?.split(".")[1];
  if (!part || token?.split(".").length !== 3) return undefined;
  try {
    const base64 = part.replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "="));
    const text = new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    const payload: unknown = JSON.parse(text);
    return payload && typeof payload === "object"
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
