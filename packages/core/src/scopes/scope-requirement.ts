/**
 * What a route requires of a key's scopes: a plain list (every one, as since v0.1), `{ allOf }`
 * (the same, spelled out) or `{ anyOf }` (at least one). A user's session holds every scope, so
 * it meets any requirement. Guards check a requirement's shape when they are created
 * (`keyward.assertScopes`), so a malformed one fails at start, not on every request.
 */
import type { ScopeRegistry } from "./scope-registry.js";

/** The scopes a route needs: all of a list, `{ allOf: [...] }`, or `{ anyOf: [...] }`. */
export type ScopeRequirement =
  | readonly string[]
  | { readonly allOf: readonly string[] }
  | { readonly anyOf: readonly string[] };

const noneMissing: readonly string[] = Object.freeze([]);

/**
 * The scopes of `requirement` a key holding `granted` lacks: for a list or `allOf`, each one it
 * does not hold; for `anyOf`, every listed scope when it holds none of them (and none when it holds
 * one). Empty: the requirement is met. A plain list goes straight to the registry, as before.
 */
export function unmetScopes(
  registry: ScopeRegistry,
  granted: readonly string[],
  requirement: ScopeRequirement,
): readonly string[] {
  if (isScopeList(requirement)) return registry.missing(granted, requirement);
  assertWellFormed(requirement);
  if ("allOf" in requirement) return registry.missing(granted, requirement.allOf);
  for (const scope of requirement.anyOf) if (granted.includes(scope)) return noneMissing;
  return requirement.anyOf;
}

/** Whether the requirement asks for anything at all (an empty list asks for nothing). */
export function requiresAnyScope(requirement: ScopeRequirement | undefined): boolean {
  if (requirement === undefined) return false;
  if (isScopeList(requirement)) return requirement.length > 0;
  return true; // `allOf` and `anyOf` are never empty (`scopeRequirementProblem`)
}

/** The refusal's wording: which scope a key lacks, or which ones it needs one of. */
export function insufficientScopeDetail(
  requirement: ScopeRequirement,
  missing: readonly string[],
): string {
  if (!isScopeList(requirement) && "anyOf" in requirement) {
    return `API key lacks the required scope: one of ${missing.join(", ")}`;
  }
  return `API key lacks the required scope: ${missing.join(", ")}`;
}

/** Every scope name a requirement mentions. */
export function scopesNamedBy(requirement: ScopeRequirement): readonly string[] {
  if (isScopeList(requirement)) return requirement;
  return "allOf" in requirement ? requirement.allOf : requirement.anyOf;
}

/**
 * What is wrong with the shape of a requirement, or undefined when it is well formed: a list of
 * strings, or an object with exactly one of `allOf` / `anyOf` holding a non-empty list of strings.
 * (Whether the scopes are configured is the registry's question.)
 */
export function scopeRequirementProblem(requirement: unknown): string | undefined {
  if (Array.isArray(requirement)) return listProblem(requirement, "`scopes`");
  if (typeof requirement !== "object" || requirement === null) {
    return "`scopes` must be a list of scopes, { allOf: [...] } or { anyOf: [...] }";
  }
  const keys = Object.keys(requirement);
  if (keys.length !== 1 || (keys[0] !== "allOf" && keys[0] !== "anyOf")) {
    return `\`scopes\` must have exactly one of \`allOf\` or \`anyOf\`, got ${keys.length === 0 ? "none" : keys.map((key) => `\`${key}\``).join(", ")}`;
  }
  const name = keys[0]!;
  const list = (requirement as Record<string, unknown>)[name];
  if (!Array.isArray(list)) return `\`scopes.${name}\` must be a list of scopes`;
  if (list.length === 0) {
    return `\`scopes.${name}\` must name at least one scope (an empty list would ${name === "anyOf" ? "refuse every key" : "require nothing"}; omit \`scopes\` instead)`;
  }
  return listProblem(list, `\`scopes.${name}\``);
}

function listProblem(list: readonly unknown[], where: string): string | undefined {
  const bad = list.find((scope) => typeof scope !== "string");
  return bad === undefined
    ? undefined
    : `${where} must hold scope names (strings), got ${String(bad)}`;
}

/** Object requirements seen well formed: a guard passes the same object on every request. */
const wellFormed = new WeakSet<object>();

/** Throws a `TypeError` naming the problem of a malformed requirement `verify` was given. */
function assertWellFormed(requirement: object): void {
  if (wellFormed.has(requirement)) return;
  const problem = scopeRequirementProblem(requirement);
  if (problem !== undefined) throw new TypeError(`Keyward: verify's ${problem}`);
  wellFormed.add(requirement);
}

function isScopeList(requirement: ScopeRequirement): requirement is readonly string[] {
  return Array.isArray(requirement);
}
