/** `GET {basePath}/scopes`'s answer, and the scope and tier enumerations, as arktype types. */
import { type } from "arktype";

export function scopeTypes(scopes: readonly string[], tiers: readonly string[]) {
  // No `describe` here: arktype would copy it onto every member of the enumeration.
  const scope = type.enumerated(...scopes);
  const tier = type.enumerated(...tiers);
  const list = type({ data: type({ name: scope, description: "string" }).array() });
  return { scope, tier, list };
}
