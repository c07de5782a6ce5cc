/**
 * Which key verifies tokens: exactly one of `secret`, `jwksUrl` or `key`, each resolved, with the
 * algorithms pinned to it, by its own file.
 */
import type { PinnedKey } from "./algorithms.js";
import { jwksKey } from "./jwks.js";
import { givenKey } from "./key.js";
import type { JwtOptions } from "./options.js";
import { secretKey } from "./secret.js";

export function resolveKey(options: JwtOptions): PinnedKey {
  if (typeof options !== "object" || options === null)
    throw new TypeError("jwt options are required");
  const given = (["secret", "jwksUrl", "key"] as const).filter((name) => options[name] != null);
  if (given.length !== 1) {
    const hint =
      given.length > 1
        ? `; got ${given.join(" and ")}`
        : "secret" in options
          ? " (jwt.secret is undefined: is its environment variable set?)"
          : "";
    throw new TypeError(`jwt options need exactly one of secret, jwksUrl or key${hint}`);
  }
  if (options.secret != null) return secretKey(options.secret, options.algorithms);
  if (options.jwksUrl != null) return jwksKey(options);
  return givenKey(options.key, options.algorithms);
}
