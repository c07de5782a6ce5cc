import { describe, expect, it } from "vitest";
import type { CreateKeyBody, SuiteClient } from "./client.js";
import { expectErrorDetail, expectJson, expectValidationIssues, issueAt } from "./expectations.js";
import type { SuiteContract } from "./suite-contract.js";

interface FieldCase {
  problem: string;
  fields: CreateKeyBody;
  loc: (string | number)[];
  type: string;
}

const day = 86_400_000;

/** One invalid field at a time, on an otherwise valid body. */
function fieldCases(contract: SuiteContract): FieldCase[] {
  return [
    {
      problem: "name missing",
      fields: { name: undefined },
      loc: ["body", "name"],
      type: "missing",
    },
    {
      problem: "name empty",
      fields: { name: "" },
      loc: ["body", "name"],
      type: "string_too_short",
    },
    {
      problem: "name over 100 characters",
      fields: { name: "n".repeat(101) },
      loc: ["body", "name"],
      type: "string_too_long",
    },
    {
      problem: "name not a string",
      fields: { name: 42 },
      loc: ["body", "name"],
      type: "string_type",
    },
    {
      problem: "scopes missing",
      fields: { scopes: undefined },
      loc: ["body", "scopes"],
      type: "missing",
    },
    {
      problem: "scopes not a list",
      fields: { scopes: contract.readScope },
      loc: ["body", "scopes"],
      type: "list_type",
    },
    { problem: "scopes empty", fields: { scopes: [] }, loc: ["body", "scopes"], type: "too_short" },
    {
      problem: "an unknown scope",
      fields: { scopes: [contract.readScope, contract.unknownScope] },
      loc: ["body", "scopes", 1],
      type: "literal_error",
    },
    {
      problem: "a scope that is not a string",
      fields: { scopes: [contract.readScope, 7] },
      loc: ["body", "scopes", 1],
      type: "string_type",
    },
    {
      problem: "a duplicate scope",
      fields: { scopes: [contract.readScope, contract.otherScope, contract.readScope] },
      loc: ["body", "scopes", 2],
      type: "value_error",
    },
    {
      problem: "tier missing",
      fields: { tier: undefined },
      loc: ["body", "tier"],
      type: "missing",
    },
    {
      problem: "an unknown tier",
      fields: { tier: contract.unknownTier },
      loc: ["body", "tier"],
      type: "literal_error",
    },
    {
      problem: "expiresAt not a date-time",
      fields: { expiresAt: "next tuesday" },
      loc: ["body", "expiresAt"],
      type: "datetime_parsing",
    },
    {
      problem: "expiresAt in the past",
      fields: { expiresAt: new Date(Date.now() - day).toISOString() },
      loc: ["body", "expiresAt"],
      type: "datetime_future",
    },
  ];
}

/** Bodies the create endpoint must refuse: not JSON (400), too large (413), or invalid (422). */
export function validationSuite(client: SuiteClient): void {
  const contract = client.contract;
  describe("request bodies", () => {
    it.each(['{"name": "unterminated', "{name: 'not json'}", "{}}"])(
      "400 for malformed JSON: %s",
      async (body) => {
        const user = await client.newUser();
        expectErrorDetail(
          await client.send("POST", client.basePath, { token: user.token, body }),
          400,
        );
        expect((await client.listKeys(user.token)).body).toEqual({ data: [] });
      },
    );

    it("413 for a body over 64 KiB, even when it is valid JSON", async () => {
      const user = await client.newUser();
      const json = { ...client.validCreateBody(), padding: "p".repeat(70 * 1024) };
      expectErrorDetail(
        await client.send("POST", client.basePath, { token: user.token, json }),
        413,
      );
      expect((await client.listKeys(user.token)).body).toEqual({ data: [] });
    });

    it("accepts a body just under 64 KiB", async () => {
      const user = await client.newUser();
      const json = { ...client.validCreateBody(), padding: "p".repeat(60 * 1024) };
      expectJson(await client.send("POST", client.basePath, { token: user.token, json }), 201);
    });

    it.each([[[]], ["a string"], [42], [null]])(
      "422 for a body that is not an object: %j",
      async (json) => {
        const user = await client.newUser();
        const reply = await client.send("POST", client.basePath, {
          token: user.token,
          body: JSON.stringify(json),
        });
        const issues = expectValidationIssues(reply);
        for (const issue of issues) expect(issue.loc[0]).toBe("body");
      },
    );

    it("422 lists every problem at once", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        scopes: [contract.readScope, contract.unknownScope],
        tier: contract.unknownTier,
      });
      const issues = expectValidationIssues(reply);
      expect(issues).toHaveLength(3);
      expect(issueAt(issues, ["body", "name"]).type).toBe("missing");
      expect(issueAt(issues, ["body", "scopes", 1]).type).toBe("literal_error");
      expect(issueAt(issues, ["body", "tier"]).type).toBe("literal_error");
      expect((await client.listKeys(user.token)).body).toEqual({ data: [] });
    });

    it.each(fieldCases(contract))("422 for $problem", async ({ fields, loc, type }) => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, { ...client.validCreateBody(), ...fields });
      const issues = expectValidationIssues(reply);
      expect(issues, JSON.stringify(issues)).toHaveLength(1);
      expect(issues[0]!.loc).toEqual(loc);
      expect(issues[0]!.type).toBe(type);
    });

    it("accepts a 100-character name and several distinct scopes", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        name: "n".repeat(100),
        scopes: [contract.readScope, contract.writeScope, ...contract.unrelatedScopes],
      });
      expectJson(reply, 201);
      expect(reply.body.name).toBe("n".repeat(100));
    });
  });
}
