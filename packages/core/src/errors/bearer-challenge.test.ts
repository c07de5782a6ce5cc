import { describe, expect, it } from "vitest";
import { bearerChallenge } from "./bearer-challenge.js";
import { errorStatus, type KeywardErrorCode } from "./codes.js";
import { KeywardError } from "./keyward-error.js";

const codes = Object.keys(errorStatus) as KeywardErrorCode[];

describe("WWW-Authenticate on 401s (RFC 6750)", () => {
  it("challenges with plain Bearer when no bearer credential was presented", () => {
    const error = new KeywardError("missing_credentials", "Not authenticated");
    expect(error.headers).toEqual({ "WWW-Authenticate": "Bearer" });
    expect(error.toResponse().headers.get("www-authenticate")).toBe("Bearer");
  });

  it.each([
    ["invalid_token", "Token has expired"],
    ["invalid_api_key", "API key has been revoked"],
  ] as const)("answers a refused %s with error=invalid_token and its detail", (code, detail) => {
    const response = new KeywardError(code, detail).toResponse({ "X-RateLimit-Limit": "60" });
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", error_description="${detail}"`,
    );
    expect(response.headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("gives every 401 code a challenge but a scanner's signature, and no other status one", () => {
    for (const code of codes) {
      const challenge = bearerChallenge(code, "detail");
      // A secret scanner signs its report; it presents no bearer token to challenge.
      if (code === "invalid_signature") expect(challenge, code).toBeNull();
      else if (errorStatus[code] === 401) expect(challenge, code).toMatch(/^Bearer( |$)/);
      else expect(challenge, code).toBeNull();
    }
    expect(new KeywardError("insufficient_scope", "API key lacks a scope").headers).toEqual({});
  });

  it.each([
    ["a quote", 'Token "x" is bad'],
    ["a backslash", "Token \\ is bad"],
    ["a line break", "Token\r\nSet-Cookie: a=1"],
    ["non-ASCII text", "Jeton expiré"],
    ["an empty detail", ""],
    ["an overlong detail", "x".repeat(201)],
  ])("leaves out an error_description with %s rather than escape it", (_, detail) => {
    expect(bearerChallenge("invalid_token", detail)).toBe('Bearer error="invalid_token"');
  });

  it("keeps headers given to the error beside the challenge", () => {
    const error = new KeywardError("invalid_token", "Token is invalid", {
      headers: { "Cache-Control": "no-store" },
    });
    expect(error.headers).toEqual({
      "WWW-Authenticate": 'Bearer error="invalid_token", error_description="Token is invalid"',
      "Cache-Control": "no-store",
    });
  });
});
