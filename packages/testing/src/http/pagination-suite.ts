import type { KeyRecord } from "@keyward/core";
import { describe, expect, it } from "vitest";
import type { SuiteClient } from "./client.js";
import { expectJson, expectValidationIssues, issueAt } from "./expectations.js";

interface Page {
  data: KeyRecord[];
  nextCursor: string | null;
}

/** `GET {basePath}?limit=&cursor=`: pages of the caller's keys; without `limit`, every key. */
export function paginationSuite(client: SuiteClient): void {
  describe("pagination", () => {
    it("pages through every key exactly once, newest first, then says there is no more", async () => {
      const user = await client.newUser(client.contract.highestTier.name);
      const created: string[] = [];
      for (let index = 0; index < 5; index++) created.push((await client.createKeyFor(user)).id);
      const all = await client.listKeys(user.token);
      expect(Object.keys(all.body)).toEqual(["data"]);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 4; pages++) {
        const query: string =
          cursor === null ? "?limit=2" : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
        const reply = await client.send<Page>("GET", `${client.basePath}${query}`, {
          token: user.token,
        });
        expectJson(reply, 200);
        expect(Object.keys(reply.body).sort()).toEqual(["data", "nextCursor"]);
        seen.push(...reply.body.data.map((key) => key.id));
        cursor = reply.body.nextCursor;
        if (cursor === null) break;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(all.body.data.map((key) => key.id));
      expect([...seen].sort()).toEqual([...created].sort());
    });

    it("refuses a bad limit or cursor with 422", async () => {
      // Seven calls: the highest tier, so that no configuration's lowest allowance gets in the way.
      const user = await client.newUser(client.contract.highestTier.name);
      for (const limit of ["0", "-1", "abc", "1001", "2.5", ""]) {
        const reply = await client.send("GET", `${client.basePath}?limit=${limit}`, {
          token: user.token,
        });
        issueAt(expectValidationIssues(reply), ["query", "limit"]);
      }
      const reply = await client.send("GET", `${client.basePath}?limit=2&cursor=%25%25nope`, {
        token: user.token,
      });
      issueAt(expectValidationIssues(reply), ["query", "cursor"]);
    });
  });
}
