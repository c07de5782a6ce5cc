/**
 * The key format of one instance: its environments (`keys.environments`, or the one `keys.prefix`)
 * and the format that issues and parses keys with their prefixes.
 */
import { createEnvironments, type Environments } from "../environments/environments.js";
import { createKeyFormat, DEFAULT_KEY_PREFIX, type KeyFormat } from "../keys/format.js";
import type { RandomSource } from "../random.js";
import type { KeywardConfig } from "./config.js";

export function instanceKeyFormat(
  config: Pick<KeywardConfig, "keys">,
  random: RandomSource,
): { environments: Environments; format: KeyFormat } {
  const configured = config.keys?.environments;
  if (configured !== undefined && config.keys?.prefix !== undefined) {
    throw new TypeError(
      "Keyward: set `keys.environments` or `keys.prefix`, not both: with environments, each one's prefix is given in `keys.environments`",
    );
  }
  const environments = createEnvironments(configured, config.keys?.prefix ?? DEFAULT_KEY_PREFIX);
  try {
    return { environments, format: createKeyFormat({ prefixes: environments.prefixes, random }) };
  } catch (error) {
    // The format names the prefix; the option it came from is what the host has to fix.
    const option = configured === undefined ? "keys.prefix" : "keys.environments";
    throw new TypeError(`Keyward: \`${option}\`: ${(error as Error).message}`);
  }
}
