/** `GET {basePath}/scopes`'s answer, and the scope and tier enumerations, as arktype schema nodes. */
import { listOf, object, oneOf, string } from "./nodes.js";

export function scopeTypes(scopes: readonly string[], tiers: readonly string[]) {
  // No `describe` here: arktype would copy it onto every member of the enumeration.
  const scope = oneOf(...scopes);
  const tier = oneOf(...tiers);
  const list = object({
    required: { data: listOf(object({ required: { name: scope, description: string } })) },
  });
  return { scope, tier, list };
}
