import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readUnkey } from "./unkey.js";

const directory = mkdtempSync(path.join(tmpdir(), "keyward-unkey-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const file = (body: string) => {
  const where = path.join(directory, `${crypto.randomUUID()}.json`);
  writeFileSync(where, body);
  return where;
};

describe("Unkey's migration body as import records", () => {
  it("maps both shapes: a list (createKeys) and { keys } (migrateKeys), hashes, plaintext, credits", async () => {
    const list = await readUnkey(
      file(
        JSON.stringify([
          {
            hash: { value: "YWJj", variant: "sha256_base64" },
            prefix: "sk",
            ownerId: "user_1",
            remaining: 3,
            refill: { interval: "monthly", amount: 10 },
            expires: 1_900_000_000_000,
          },
        ]),
      ),
      "free",
    );
    expect(list.records[0]!.record).toEqual({
      hash: { value: "YWJj", algorithm: "sha256", encoding: "base64" },
      prefix: "sk_",
      owner: "user_1",
      scopes: [],
      tier: "free",
      expiresAt: new Date(1_900_000_000_000).toISOString(),
      metadata: null,
      enabled: true,
      credits: { remaining: 3, refill: { amount: 10, period: "month" } },
    });
    const wrapped = await readUnkey(
      file(
        JSON.stringify({ keys: [{ plaintext: "uk_secret", externalId: "user_2", tier: "pro" }] }),
      ),
      "free",
    );
    expect(wrapped.records[0]!.record).toMatchObject({
      key: "uk_secret",
      owner: "user_2",
      tier: "pro",
    });
  });

  it("lists, with why, a key with another hash variant, no secret, or another refill interval", async () => {
    const { records, unmapped } = await readUnkey(
      file(
        JSON.stringify([
          { hash: { value: "x", variant: "bcrypt" }, externalId: "a" },
          { externalId: "b" },
          {
            hash: "YWJj",
            externalId: "c",
            remaining: 1,
            refill: { interval: "hourly", amount: 1 },
          },
          "not a key",
        ]),
      ),
      "free",
    );
    expect(records).toEqual([]);
    expect(unmapped).toEqual([
      { source: "keys[0]", reason: 'hash variant "bcrypt": only sha256_base64 is known' },
      { source: "keys[1]", reason: "has neither hash nor plaintext" },
      {
        source: "keys[2]",
        reason: 'refill interval "hourly": Keyward\'s credits refill "daily" or "monthly"',
      },
      { source: "keys[3]", reason: "not an object" },
    ]);
  });

  it("refuses a file that is not JSON, or holds no list of keys", async () => {
    await expect(readUnkey(file("{"), "free")).rejects.toThrow(/cannot read .* as JSON/);
    await expect(readUnkey(file('{"data": []}'), "free")).rejects.toThrow(/neither a list of keys/);
  });
});
