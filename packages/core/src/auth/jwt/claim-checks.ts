/**
 * The claim checks handed to jose: `iss`, `aud`, the clock tolerance, a required `exp` and the
 * maximum token age. jose makes every one of these checks and reads the durations itself (seconds,
 * or text such as "30s" or "7 days"); what is ours is refusing a wrong setting when Keyward starts,
 * because jose only looks at its options once a token arrives.
 */
import type { JWTVerifyOptions } from "jose";
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

function joseDuration(
  value: unknown,
  name: "clockTolerance" | "maxTokenAge",
): number | string | undefined {
  if (value === undefined) return undefined;
  // Surrounding spaces (an environment variable's, say) were always accepted; jose refuses them.
  const setting = typeof value === "string" ? value.trim() : value;
  if (!joseReadsDuration(setting)) {
    throw new TypeError(
      `jwt.${name} must be seconds (>= 0) or a duration such as "30s", "15m", "12h" or "7d"`,
    );
  }
  return setting as number | string;
}

/**
 * jose's grammar for durations (`secs` in its `lib/jwt_claims_set.js`, 6.x), which it applies to
 * both options once a token arrives: a finite number, or text such as "30s", "1.5 hours" or
 * "2 weeks", and never below zero. Repeated here rather than asked of jose through an unsigned
 * token (`UnsecuredJWT`), which put jose's token builder and encoder into every bundle (2.1 KB
 * minified) for a check made once at start-up; claim-checks.test.ts holds the two to the same
 * answers, setting by setting.
 */
const durationPattern =
  /^(\+|-)? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)(?: (ago|from now))?$/i;
const secondsPerUnit: Record<string, number> = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86_400,
  w: 604_800,
  y: 31_557_600,
};

function joseReadsDuration(setting: unknown): boolean {
  if (typeof setting === "number") return Number.isFinite(setting) && setting >= 0;
  if (typeof setting !== "string") return false;
  const matched = durationPattern.exec(setting);
  // jose refuses a sign together with "ago" or "from now".
  if (!matched || (matched[4] && matched[1])) return false;
  const seconds = Math.round(
    Number.parseFloat(matched[2]!) * secondsPerUnit[matched[3]![0]!.toLowerCase()]!,
  );
  // jose negates for "-" or for "ago" in lower case only (its comparison ignores the `i` flag).
  const negative = matched[1] === "-" || matched[4] === "ago";
  return Number.isFinite(seconds) && !(negative && seconds > 0);
}
