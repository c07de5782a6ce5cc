/**
 * The scopes a deployment offers, each with a description shown by `GET /api-keys/scopes`.
 * Keys can only be granted scopes from this registry.
 */
export interface ScopeRegistry {
  /** Scope names in the order they were configured. */
  readonly names: readonly string[];
  has(name: string): boolean;
  list(): { name: string; description: string }[];
  /** The scopes from `required` that `granted` lacks (empty when every one is granted). */
  missing(granted: readonly string[], required: readonly string[]): readonly string[];
}

const noneMissing: readonly string[] = Object.freeze([]);

const scopeName = /^[A-Za-z0-9][A-Za-z0-9_.:*-]{0,127}$/;

/**
 * @example
 * const scopes = createScopeRegistry({ "profile:read": "Read profiles", "profile:write": "Edit profiles" });
 * scopes.missing(["profile:read"], ["profile:write"]); // ["profile:write"]
 */
export function createScopeRegistry(scopes: Record<string, string>): ScopeRegistry {
  const entries = Object.entries(scopes);
  if (entries.length === 0) throw new TypeError("Keyward: `scopes` must define at least one scope");
  for (const [name, description] of entries) {
    if (!scopeName.test(name)) {
      throw new TypeError(
        `Keyward: invalid scope name ${JSON.stringify(name)} (use letters, digits and _ . : * -, at most 128 characters)`,
      );
    }
    if (typeof description !== "string") {
      throw new TypeError(`Keyward: the description of scope "${name}" must be a string`);
    }
  }
  const known = new Set(entries.map(([name]) => name));
  const listing = entries.map(([name, description]) => ({ name, description }));
  return {
    names: [...known],
    has: (name) => known.has(name),
    list: () => listing.map((entry) => ({ ...entry })),
    missing(granted, required) {
      // Keys hold a handful of scopes, so a linear scan beats building a Set on the hot path, and
      // the usual answer (all granted) allocates nothing.
      for (const scope of required) {
        if (!granted.includes(scope)) return required.filter((each) => !granted.includes(each));
      }
      return noneMissing;
    },
  };
}
