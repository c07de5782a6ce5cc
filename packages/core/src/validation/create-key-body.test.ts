import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
import { createTierLadder } from "../tiers/tier-ladder.js";
import { createKeyBodySchema, validateCreateKeyBody } from "./create-key-body.js";

const now = Date.parse("2026-06-01T12:00:00Z");
const schema = createKeyBodySchema({
  scopes: createScopeRegistry({ "profile:read": "Read", "profile:write": "Write" }),
  tiers: createTierLadder({
    free: { rateLimit: { limit: 60, window: "1m" } },
    pro: { rateLimit: { limit: 600, window: "1m" } },
  }),
  clock: manualClock(now),
});
const validate = (input: unknown) => validateCreateKeyBody(schema, input);
const issues = (input: unknown) => {
  const result = validate(input);
  if (result.ok) throw new Error("expected validation to fail");
  return result.issues;
};

describe("create-key body validation", () => {
  it("accepts a valid body, ignoring unknown fields", () => {
    const result = validate({
      name: "CI",
      scopes: ["profile:read"],
      tier: "pro",
      expiresAt: "2026-09-01T00:00:00Z",
      extra: true,
    });
    expect(result).toEqual({
      ok: true,
      value: {
        name: "CI",
        scopes: ["profile:read"],
        tier: "pro",
        expiresAt: "2026-09-01T00:00:00Z",
      },
      expiresAt: Date.parse("2026-09-01T00:00:00Z"),
    });
  });

  it("treats a missing or null expiresAt as never expiring", () => {
    for (const body of [{}, { expiresAt: null }]) {
      const result = validate({ name: "a", scopes: ["profile:read"], tier: "free", ...body });
      expect(result.ok && result.expiresAt).toBeNull();
    }
  });

  it("reports every missing field at once", () => {
    expect(issues({})).toEqual([
      { loc: ["body", "name"], msg: "Field required", type: "missing" },
      { loc: ["body", "scopes"], msg: "Field required", type: "missing" },
      { loc: ["body", "tier"], msg: "Field required", type: "missing" },
    ]);
  });

  it("reports wrong types with Pydantic type names", () => {
    expect(issues({ name: 5, scopes: "profile:read", tier: 1, expiresAt: 7 })).toEqual([
      { loc: ["body", "name"], msg: "Input should be a valid string", type: "string_type" },
      { loc: ["body", "scopes"], msg: "Input should be a valid list", type: "list_type" },
      { loc: ["body", "tier"], msg: "Input should be a valid string", type: "string_type" },
      {
        loc: ["body", "expiresAt"],
        msg: "Input should be a valid datetime",
        type: "datetime_type",
      },
    ]);
  });

  it("reports any non-string expiresAt as datetime_type", () => {
    for (const expiresAt of [7, true, {}, []]) {
      expect(issues({ name: "a", scopes: ["profile:read"], tier: "free", expiresAt })).toEqual([
        {
          loc: ["body", "expiresAt"],
          msg: "Input should be a valid datetime",
          type: "datetime_type",
        },
      ]);
    }
  });

  it("checks lengths, known scopes, duplicates, tiers and dates together", () => {
    const found = issues({
      name: "x".repeat(101),
      scopes: ["profile:read", "admin", "profile:read"],
      tier: "gold",
      expiresAt: "2020-01-01T00:00:00Z",
    });
    expect(found).toEqual([
      {
        loc: ["body", "name"],
        msg: "String should have at most 100 characters",
        type: "string_too_long",
      },
      {
        loc: ["body", "scopes", 1],
        msg: "Input should be 'profile:read' or 'profile:write'",
        type: "literal_error",
      },
      {
        loc: ["body", "scopes", 2],
        msg: "Value error, duplicate scope 'profile:read'",
        type: "value_error",
      },
      { loc: ["body", "tier"], msg: "Input should be 'free' or 'pro'", type: "literal_error" },
      { loc: ["body", "expiresAt"], msg: "Input should be in the future", type: "datetime_future" },
    ]);
  });

  it("rejects an empty name and an empty scope list", () => {
    expect(issues({ name: "", scopes: [], tier: "free" })).toEqual([
      {
        loc: ["body", "name"],
        msg: "String should have at least 1 character",
        type: "string_too_short",
      },
      { loc: ["body", "scopes"], msg: "List should have at least 1 item", type: "too_short" },
    ]);
  });

  it("counts name length in characters, not UTF-16 units", () => {
    expect(validate({ name: "🔑".repeat(100), scopes: ["profile:read"], tier: "free" }).ok).toBe(
      true,
    );
  });

  describe("name", () => {
    const body = (name: string) => ({ name, scopes: ["profile:read"], tier: "free" });
    const nameIssue = (name: string) => {
      const found = issues(body(name));
      expect(found).toHaveLength(1);
      expect(found[0]?.loc).toEqual(["body", "name"]);
      return found[0];
    };

    it("is stored trimmed", () => {
      const result = validate(body(" \t deploy bot \n\u00a0"));
      expect(result.ok && result.value.name).toBe("deploy bot");
    });

    it.each([" ", "\t\n", "\u00a0\u3000", "\ufeff"])(
      "refuses whitespace-only %j as too short",
      (name) => {
        expect(nameIssue(name)).toEqual({
          loc: ["body", "name"],
          msg: "String should have at least 1 character",
          type: "string_too_short",
        });
      },
    );

    it("counts the length after trimming", () => {
      expect(validate(body(`  ${"x".repeat(100)}  `)).ok).toBe(true);
      expect(nameIssue(` ${"x".repeat(101)} `)?.type).toBe("string_too_long");
    });

    it.each([
      ["NUL", "a\u0000b", "a control character (found U+0000)"],
      ["a tab inside", "a\tb", "a control character (found U+0009)"],
      ["a line break inside", "a\nb", "a control character (found U+000A)"],
      ["DEL", "a\u007fb", "a control character (found U+007F)"],
      ["a C1 control", "a\u0085b", "a control character (found U+0085)"],
      [
        "LRE",
        "a\u202ab",
        "a bidirectional override, embedding or isolate character (found U+202A)",
      ],
      [
        "RLO",
        "a\u202eb",
        "a bidirectional override, embedding or isolate character (found U+202E)",
      ],
      [
        "LRI",
        "a\u2066b",
        "a bidirectional override, embedding or isolate character (found U+2066)",
      ],
      [
        "PDI",
        "a\u2069b",
        "a bidirectional override, embedding or isolate character (found U+2069)",
      ],
      [
        "a lone high surrogate",
        "a\ud800b",
        "a lone surrogate (the text is not valid Unicode) (found U+D800)",
      ],
      [
        "a lone low surrogate",
        "a\udc00",
        "a lone surrogate (the text is not valid Unicode) (found U+DC00)",
      ],
    ])("refuses %s with a value_error naming the character", (_, name, what) => {
      expect(nameIssue(name)).toEqual({
        loc: ["body", "name"],
        msg: `Value error, name must not contain ${what}`,
        type: "value_error",
      });
    });

    it.each([
      ["right-to-left text", "مفتاح النشر"],
      ["bidi marks (not overrides)", "a\u200fb\u200e"],
      ["emoji with a joiner", "👩\u200d💻 deploy"],
      ["a surrogate pair", "🔑"],
      ["inner spaces", "deploy   bot"],
    ])("accepts %s", (_, name) => {
      expect(validate(body(name)).ok).toBe(true);
    });

    it("reports the length before the content, one issue per field", () => {
      expect(nameIssue(`${"x".repeat(101)}\u0000`)?.type).toBe("string_too_long");
    });

    it("trims in the Standard Schema output too", async () => {
      const result = await schema["~standard"].validate(body("  ci  "));
      expect(result).toEqual({ value: { name: "ci", scopes: ["profile:read"], tier: "free" } });
    });
  });

  it("reports a non-string scope at its index", () => {
    expect(issues({ name: "a", scopes: ["profile:read", 3], tier: "free" })).toEqual([
      { loc: ["body", "scopes", 1], msg: "Input should be a valid string", type: "string_type" },
    ]);
  });

  it.each([
    ["not a date", "datetime_parsing"],
    ["2030-02-30T00:00:00Z", "datetime_parsing"],
    ["March 7, 2030", "datetime_parsing"],
    ["2030-01-01T25:00:00Z", "datetime_parsing"],
    ["2030-01-01T00:00:00", "timezone_aware"],
    ["2026-06-01T12:00:00Z", "datetime_future"],
  ])("rejects expiresAt %j as %s", (expiresAt, type) => {
    expect(issues({ name: "a", scopes: ["profile:read"], tier: "free", expiresAt })).toEqual([
      { loc: ["body", "expiresAt"], msg: expect.any(String), type },
    ]);
  });

  it("accepts expiresAt up to 9999-12-31T23:59:59Z", () => {
    const result = validate({
      name: "a",
      scopes: ["profile:read"],
      tier: "free",
      expiresAt: "9999-12-31T23:59:59Z",
    });
    expect(result.ok && result.expiresAt).toBe(Date.UTC(9999, 11, 31, 23, 59, 59));
  });

  it.each(["9999-12-31T23:59:59.001Z", "9999-12-31T23:30:00-01:00", "9999-12-31T23:59:59-23:59"])(
    "refuses expiresAt %j, past the last four-digit year, as less_than_equal",
    (expiresAt) => {
      expect(issues({ name: "a", scopes: ["profile:read"], tier: "free", expiresAt })).toEqual([
        {
          loc: ["body", "expiresAt"],
          msg: "Input should be less than or equal to 9999-12-31T23:59:59Z",
          type: "less_than_equal",
        },
      ]);
    },
  );

  it("refuses expanded-year expiresAt forms", () => {
    for (const expiresAt of ["+010000-01-01T00:00:00Z", "+002030-01-01T00:00:00Z"]) {
      const [issue] = issues({ name: "a", scopes: ["profile:read"], tier: "free", expiresAt });
      expect(issue?.type).toBe("datetime_parsing");
    }
  });

  it("accepts offsets other than Z", () => {
    const result = validate({
      name: "a",
      scopes: ["profile:read"],
      tier: "free",
      expiresAt: "2026-06-01T14:00:01+02:00",
    });
    expect(result.ok && result.expiresAt).toBe(Date.parse("2026-06-01T12:00:01Z"));
  });

  it("rejects a body that is not an object", () => {
    for (const body of [[], "text", 42, null]) {
      expect(issues(body)).toEqual([
        {
          loc: ["body"],
          msg: "Input should be a valid dictionary or object to extract fields from",
          type: "model_attributes_type",
        },
      ]);
    }
  });

  it("is a Standard Schema", async () => {
    const result = await schema["~standard"].validate({ name: "a", scopes: [], tier: "free" });
    expect(result.issues?.length).toBe(1);
    expect(schema["~standard"].vendor).toBe("arktype");
  });
});
