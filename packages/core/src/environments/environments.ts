/**
 * Environments: several key prefixes in one instance (`live: "sk_live_"`, `test: "sk_test_"`), so a
 * key says by its first characters which data it may touch, and a route can refuse the others
 * (`verify(…, { environment })`). The prefix is part of the hashed secret, so a key cannot be moved
 * to another environment by editing it.
 */
import type { StoredKey } from "../storage/key-store.js";

/** The environment of an instance configured without `environments`. */
export const defaultEnvironmentName = "live";

/** Environment names: short, lowercase, safe in a URL, a log line and a database column. */
const namePattern = /^[a-z][a-z0-9_-]{0,31}$/;

export interface Environments {
  /** Whether `environments` was configured: only then do records and bodies carry `environment`. */
  readonly configured: boolean;
  /** Every environment's name, the default (the first configured) first. */
  readonly names: readonly string[];
  /** Every prefix, in the order of `names`. */
  readonly prefixes: readonly string[];
  /** The environment keys are created in when none is named. */
  readonly defaultName: string;
  has(name: string): boolean;
  /** The prefix of a configured environment. */
  prefixOf(name: string): string | undefined;
  /** The environment whose prefix this is. */
  nameOfPrefix(prefix: string): string | undefined;
  /**
   * The environment a stored key belongs to: the one recorded with it, else (a key stored before
   * environments were configured) the one whose prefix its hint shows, else the default.
   */
  ofKey(key: StoredKey): string;
  /** The prefix a key's new secret gets on rotation: its environment's, so it stays in it. */
  prefixForKey(key: StoredKey): string;
}

/**
 * @param environments `keys.environments`: name → prefix, the default first
 * @param keyPrefix `keys.prefix`, the one environment's prefix when there is no list
 */
export function createEnvironments(
  environments: Readonly<Record<string, string>> | undefined,
  keyPrefix: string,
): Environments {
  const entries: [string, string][] =
    environments === undefined
      ? [[defaultEnvironmentName, keyPrefix]]
      : Object.entries(environments);
  const prefixByName = new Map(entries);
  const nameByPrefix = new Map(entries.map(([name, prefix]) => [prefix, name]));
  const names = Object.freeze(entries.map(([name]) => name));
  const defaultName = names[0]!;
  const ofKey = (key: StoredKey): string => {
    if (typeof key.environment === "string") return key.environment;
    for (const [prefix, name] of nameByPrefix) if (key.hint.startsWith(prefix)) return name;
    return defaultName;
  };
  return {
    configured: environments !== undefined,
    names,
    prefixes: Object.freeze(entries.map(([, prefix]) => prefix)),
    defaultName,
    has: (name) => prefixByName.has(name),
    prefixOf: (name) => prefixByName.get(name),
    nameOfPrefix: (prefix) => nameByPrefix.get(prefix),
    ofKey,
    // An environment no longer configured: the default's prefix, the only sure way to a key that parses.
    prefixForKey: (key) => prefixByName.get(ofKey(key)) ?? prefixByName.get(defaultName)!,
  };
}

/**
 * Checks the `environments` option's shape and names; the prefixes themselves are checked by the
 * key format (`createKeyFormat`), which also refuses a prefix that starts another.
 */
export function checkEnvironmentsOption(environments: unknown): void {
  if (environments === undefined) return;
  if (typeof environments !== "object" || environments === null || Array.isArray(environments)) {
    throw new TypeError(
      'Keyward: `keys.environments` must be an object of name → key prefix, like { live: "sk_live_", test: "sk_test_" }',
    );
  }
  const entries = Object.entries(environments);
  if (entries.length === 0) {
    throw new TypeError(
      'Keyward: `keys.environments` needs at least one environment, like { live: "sk_live_" }',
    );
  }
  for (const [name, prefix] of entries) {
    if (!namePattern.test(name)) {
      throw new TypeError(
        `Keyward: environment name ${JSON.stringify(name)} must be 1–32 lowercase letters, digits, "-" or "_", starting with a letter`,
      );
    }
    if (typeof prefix !== "string") {
      throw new TypeError(
        `Keyward: \`keys.environments.${name}\` must be a key prefix string like "sk_${name}_"`,
      );
    }
  }
}
