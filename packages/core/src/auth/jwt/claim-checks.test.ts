import { jwtVerify, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createJwtVerifier } from "../jwt.js";
import { claimChecks } from "./claim-checks.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const nowSec = NOW / 1000;
const SECRET = "a-development-secret-of-32-bytes!";
const secret = new TextEncoder().encode(SECRET);

function sign(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ sub: "user_1", iat: nowSec, exp: nowSec + 300, ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .sign(secret);
}

/** Whether jose, verifying a good token, refuses `setting` as an option (a TypeError). */
async function joseRefuses(name: "clockTolerance" | "maxTokenAge", setting: unknown) {
  const token = await sign({});
  const options = { [name]: setting, currentDate: new Date(NOW) };
  return jwtVerify(token, secret, options).then(
    () => false,
    (error: unknown) => error instanceof TypeError,
  );
}

describe("claimChecks: durations read by jose", () => {
  // Differential: a setting refused at start-up is exactly one jose would refuse at the first
  // token, so nothing accepted here fails later and nothing jose reads is refused here.
  const settings: unknown[] = [
    30,
    0.5,
    "30s",
    "1.5 hours",
    "2 weeks",
    "1y",
    "+30s",
    "7 DAYS",
    "soon",
    "1 month",
    "30 s ago",
    "-30s",
    -1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "",
    true,
    {},
    // The grammar's corners, each compared with jose below.
    "30 s from now",
    "30s AGO",
    "+30s ago",
    "0 ago",
    "30.s",
    ".5s",
    "1e3s",
    "30 seconds",
    "2 hrs",
    "15 mins",
    "3 yrs",
    `${"9".repeat(400)}s`,
    null,
  ];
  for (const name of ["clockTolerance", "maxTokenAge"] as const) {
    it.each(settings.map((setting) => [String(setting), setting]))(
      `${name} %s: refused at start-up exactly when jose refuses it`,
      async (_, setting) => {
        const startUp = () => claimChecks({ [name]: setting });
        if (await joseRefuses(name, setting)) {
          expect(startUp).toThrow(TypeError);
          expect(startUp).toThrow(`jwt.${name} must be seconds (>= 0) or a duration`);
        } else {
          expect(startUp).not.toThrow();
        }
      },
    );
  }

  it("hands jose the setting as given, trimmed", () => {
    expect(claimChecks({ clockTolerance: " 30s ", maxTokenAge: "2w" })).toMatchObject({
      clockTolerance: "30s",
      maxTokenAge: "2w",
    });
    expect(claimChecks({ maxTokenAge: 600 })).toMatchObject({ maxTokenAge: 600 });
  });

  it("refuses a maxTokenAge of zero written any way, which jose would take", async () => {
    for (const zero of [0, -0, "0s", "-0s", "0s ago", "0 days", "0.0h"]) {
      expect(await joseRefuses("maxTokenAge", zero)).toBe(false);
      expect(() => claimChecks({ maxTokenAge: zero })).toThrow(
        "jwt.maxTokenAge must be more than 0 seconds",
      );
    }
  });

  it("reads weeks, as jose does", async () => {
    const clock = manualClock(NOW);
    const verify = createJwtVerifier({ secret: SECRET, maxTokenAge: "2 weeks" }, clock);
    const day = 86_400;
    await expect(verify(await sign({ iat: nowSec - 13 * day }))).resolves.toBeTruthy();
    await expect(verify(await sign({ iat: nowSec - 15 * day }))).rejects.toMatchObject({
      detail: "Token is older than the maximum token age",
    });
  });
});
