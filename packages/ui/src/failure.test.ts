import { describe, expect, it } from "vitest";
import { describeFailure, retryPhrase } from "./failure.js";
import { placeIssues } from "./field-issues.js";
import { KeysApiError, retryAfterSeconds } from "./keys-client.js";
import { defaultMessages, mergeMessages } from "./messages.js";

describe("retryAfterSeconds", () => {
  const now = Date.parse("2026-11-27T12:00:00Z");
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds("Fri, 27 Nov 2026 12:01:30 GMT", now)).toBe(90);
    expect(retryAfterSeconds("Fri, 27 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
    expect(retryAfterSeconds("-5", now)).toBeUndefined();
  });
});

describe("describeFailure", () => {
  const messages = mergeMessages(undefined);

  it("words a refusal by its code, with the time to retry in the element's locale", () => {
    const limited = new KeysApiError(429, "Rate limit exceeded", {
      code: "rate_limited",
      retryAfterSeconds: 45,
    });
    expect(describeFailure(limited, messages, "en").text).toBe(
      "Too many requests in a short time. You can try again in 45 seconds.",
    );
    expect(retryPhrase(3_601, "de")).toBe("in 2 Stunden");
    const noHeader = new KeysApiError(429, "Rate limit exceeded", { code: "quota_exceeded" });
    expect(describeFailure(noHeader, messages, "en").text).toBe(
      "Your account's request quota is used up. Try again later.",
    );
  });

  it("falls back on the status without a code, and on the API's detail for anything else", () => {
    expect(describeFailure(new KeysApiError(0, "x"), messages, "en").text).toMatch(/reach/);
    expect(describeFailure(new KeysApiError(401, "x"), messages, "en")).toMatchObject({
      signedOut: true,
    });
    expect(describeFailure(new KeysApiError(418, "I'm a teapot"), messages, "en").text).toBe(
      "The server refused the request: I'm a teapot",
    );
    // A code the table does not know (a newer server) is worded by its status.
    const newer = new KeysApiError(403, "x", { code: "some_future_code" });
    expect(describeFailure(newer, messages, "en").text).toBe(defaultMessages.errors.forbidden);
  });

  it("has a message for every code of docs/errors.md", async () => {
    const { readFile } = await import("node:fs/promises");
    const errors = await readFile(new URL("../../../docs/errors.md", import.meta.url), "utf8");
    const table = errors.slice(errors.indexOf("## Codes"), errors.indexOf("## `WWW-Authenticate"));
    const codes = [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]!);
    expect(codes.length).toBeGreaterThan(30);
    expect(codes.filter((code) => !(code in defaultMessages.errors))).toEqual([]);
  });
});

describe("mergeMessages", () => {
  it("takes the host's strings over the defaults, group by group, and ignores undefined", () => {
    const merged = mergeMessages({
      states: { loading: "Chargement…", empty: undefined },
      fields: { "name.missing": "Nommez la clé." },
    });
    expect(merged.states.loading).toBe("Chargement…");
    expect(merged.states.empty).toBe(defaultMessages.states.empty);
    expect(merged.errors).toEqual(defaultMessages.errors);
    expect(merged.fields["name.missing"]).toBe("Nommez la clé.");
    expect(merged.fields["scopes.too_short"]).toBe(defaultMessages.fields["scopes.too_short"]);
  });
});

describe("placeIssues", () => {
  it("puts each issue beside the field its loc names, worded; the rest stay general", () => {
    const placed = placeIssues(
      [
        {
          loc: ["body", "name"],
          msg: "String should have at least 1 character",
          type: "string_too_short",
        },
        { loc: ["body", "scopes", 1], msg: "Input should be 'a' or 'b'", type: "literal_error" },
        {
          loc: ["body", "expiresAt"],
          msg: "Input should be in the future",
          type: "datetime_future",
        },
        { loc: ["body", "tier"], msg: "Something new", type: "brand_new_type" },
        { loc: ["body", "metadata"], msg: "Too big", type: "value_error" },
      ],
      mergeMessages(undefined),
    );
    expect(placed.byField).toEqual({
      name: "Give the key a name.",
      scopes: "A chosen scope is not offered any more: reload the page.",
      expiresAt: "Choose a day in the future.",
      tier: "Something new",
    });
    expect(placed.general).toEqual(["metadata: Too big"]);
  });
});
