import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { allowedIpsField } from "../features/lifecycle/allowed-ips-field.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
import { createTierLadder } from "../tiers/tier-ladder.js";
import { keyFieldSchemas } from "./create-key-body.js";
import { updateKeyBodySchema, validateUpdateKeyBody } from "./update-key-body.js";

const fields = keyFieldSchemas({
  scopes: createScopeRegistry({ "profile:read": "Read", "profile:write": "Write" }),
  tiers: createTierLadder({ free: { rateLimit: { limit: 60, window: "1m" } } }),
  clock: manualClock(Date.parse("2026-06-01T12:00:00Z")),
});
const schema = updateKeyBodySchema(fields, [allowedIpsField]);

describe("update-key body validation without IP allowlists (no lifecycle())", () => {
  it("refuses allowedIps as a field it does not have, and takes the rest", () => {
    const kernelOnly = updateKeyBodySchema(fields);
    expect(validateUpdateKeyBody(kernelOnly, { allowedIps: ["203.0.113.7"] })).toEqual({
      ok: false,
      issues: [
        {
          loc: ["body", "allowedIps"],
          msg: "Extra inputs are not permitted",
          type: "extra_forbidden",
        },
      ],
    });
    expect(validateUpdateKeyBody(kernelOnly, { name: "renamed" })).toEqual({
      ok: true,
      value: { name: "renamed" },
    });
  });
});
const issues = (input: unknown) => {
  const result = validateUpdateKeyBody(schema, input);
  if (result.ok) throw new Error("expected validation to fail");
  return result.issues;
};
const extra = (field: string) => ({
  loc: ["body", field],
  msg: "Extra inputs are not permitted",
  type: "extra_forbidden",
});

describe("update-key body validation", () => {
  it("accepts every field it has", () => {
    const body = {
      name: "CI",
      scopes: ["profile:read"],
      metadata: { team: "ops", note: "line\nbreak" },
      enabled: false,
      allowedIps: ["203.0.113.7"],
    };
    // A feature's key field comes out among the value's `fields`.
    const { allowedIps, ...kernelFields } = body;
    expect(validateUpdateKeyBody(schema, body)).toEqual({
      ok: true,
      value: { ...kernelFields, fields: { allowedIps } },
    });
  });

  it("names every field an update does not have, in the body's order, with the fields' own problems", () => {
    expect(issues({ tier: "pro", name: "ok", organizationId: "acme", expiresAt: null })).toEqual([
      extra("tier"),
      extra("organizationId"),
      extra("expiresAt"),
    ]);
    const both = issues({ name: "", ["__proto__"]: {}, limits: null });
    expect(both.map((issue) => issue.loc)).toEqual([
      ["body", "name"],
      ["body", "__proto__"],
      ["body", "limits"],
    ]);
    // A key of JSON.parse's own making, as a request body would have it.
    expect(issues(JSON.parse('{"__proto__": {"enabled": true}}'))).toEqual([extra("__proto__")]);
  });

  it("refuses metadata that not every store can keep: U+0000 and lone surrogates, keys included", () => {
    for (const metadata of [
      { note: "a\u0000b" },
      { "a\u0000": 1 },
      { list: [1, { deep: "\ud800" }] },
    ]) {
      expect(issues({ metadata })).toEqual([
        expect.objectContaining({ loc: ["body", "metadata"], type: "value_error" }),
      ]);
    }
  });
});
