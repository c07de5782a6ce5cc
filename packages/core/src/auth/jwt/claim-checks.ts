/**
 * The claim checks handed to jose: `iss`, `aud`, the clock tolerance, a required `exp` and the
 * maximum token age. jose makes every one of these checks and reads the durations itself (seconds,
 * or text such as "30s" or "7 days"); what is ours is refusing a wrong setting when Keyward starts,
 * because jose only looks at its options once a token arrives.
 */
import { type JWTVerifyOptions, UnsecuredJWT } from "jose";
import type { JwtCommonOptions } from "./options.js";

export type ClaimChecks = Pick<
  JWTVerifyOptions,
  "issuer" | "audience" | "clockTolerance" | "requiredClaims" | "maxTokenAge"
>;

/** jose's verify options for `options`; throws a `TypeError` naming the option that is wrong. */
export function claimChecks(options: JwtCommonOptions): ClaimChecks {
  const checks: ClaimChecks = {
    issuer: claimValues(options.issuer, "issuer"),
    audience: claimValues(options.audience, "audience"),
    clockTolerance: joseDuration(options.clockTolerance, "clockTolerance") ?? 0,
  };
  if (requireExp(options.requireExp)) checks.requiredClaims = ["exp"];
  // jose checks the age against `iat`, and requires `iat`, once `maxTokenAge` is given.
  const maxTokenAge = joseDuration(options.maxTokenAge, "maxTokenAge");
  if (maxTokenAge !== undefined) {
    // jose takes 0, which refuses every token issued before the current second: a mistake, not a
    // policy anyone means.
    if (Number.parseFloat(String(maxTokenAge)) === 0) {
      throw new TypeError("jwt.maxTokenAge must be more than 0 seconds");
    }
    checks.maxTokenAge = maxTokenAge;
  }
  return checks;
}

function claimValues(value: unknown, name: string): string | string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((item) => typeof item === "string" && item !== "")) {
    throw new TypeError(`jwt.${name} must be a non-empty string or a non-empty list of them`);
  }
  return value as string | string[];
}

function requireExp(value: unknown): boolean {
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError("jwt.requireExp must be true or false");
  }
  return value === true;
}

// A claims set of our own, `{ iat: 0 }`, which every valid setting accepts at time 0. Decoding it
// runs jose's claim checks (the same code `jwtVerify` runs) synchronously: the way to ask jose, at
// start-up, whether it will read a duration. No caller's token ever goes through `UnsecuredJWT`.
const probe = new UnsecuredJWT({ iat: 0 }).encode();

function joseDuration(
  value: unknown,
  name: "clockTolerance" | "maxTokenAge",
): number | string | undefined {
  if (value === undefined) return undefined;
  // Surrounding spaces (an environment variable's, say) were always accepted; jose refuses them.
  const setting = typeof value === "string" ? value.trim() : value;
  try {
    UnsecuredJWT.decode(probe, { [name]: setting, currentDate: new Date(0) });
  } catch (cause) {
    if (!(cause instanceof TypeError)) throw cause;
    throw new TypeError(
      `jwt.${name} must be seconds (>= 0) or a duration such as "30s", "15m", "12h" or "7d"`,
      { cause },
    );
  }
  return setting as number | string;
}
