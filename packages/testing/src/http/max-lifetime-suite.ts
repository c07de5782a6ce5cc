import type { KeyRecord } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { createSuiteClient, type ErrorBody, newSlug, type Reply } from "./client.js";
import {
  expectIsoTime,
  expectJson,
  expectStatus,
  expectValidationIssues,
  issueAt,
} from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";
import type { MaxLifetimeSuiteOptions } from "./policy-options.js";

/**
 * How far the suite's reading of the clock, before and after a request, may be from the time the
 * implementation stamped: stores that keep whole milliseconds or less, a Worker's clock that stands
 * still during a request.
 */
const toleranceMs = 5_000;

const isoTimePattern = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/;

/**
 * The `maxLifetime` policy over HTTP (`permissions({ maxLifetime })`): a create without an expiry
 * gets the cap, one within it keeps its own, one past it is 422 at `expiresAt` and creates nothing;
 * rotation keeps the expiry and PATCH cannot change it.
 */
export function maxLifetimeSuite(options: HttpSuiteOptions, policy: MaxLifetimeSuiteOptions): void {
  const now = policy.now ?? (() => Date.now());
  const client = createSuiteClient({ ...options, fetch: policy.fetch }, { now });
  const { contract } = client;
  const cap = policy.ms;
  const iso = (epochMs: number) => new Date(epochMs).toISOString();

  /** `time` is the cap counted from some moment within [before, after]. */
  const expectCapped = (time: unknown, before: number, after: number, label = "expiresAt") => {
    const epochMs = expectIsoTime(time, label);
    expect(
      epochMs,
      `${label} ${String(time)}: at least ${iso(before + cap)}`,
    ).toBeGreaterThanOrEqual(before + cap - toleranceMs);
    expect(epochMs, `${label} ${String(time)}: at most ${iso(after + cap)}`).toBeLessThanOrEqual(
      after + cap + toleranceMs,
    );
  };

  /** Creates a key with `fields` and reads the clock either side. */
  const timedCreate = async (token: string, fields: Record<string, unknown> = {}) => {
    const before = now();
    const reply = await client.createKey(token, { ...client.validCreateBody(), ...fields });
    return { reply: reply as Reply<KeyRecord & { key: string }>, before, after: now() };
  };

  describe("maxLifetime policy", () => {
    it("gives a key created without an expiry, or with null, the cap, on every tier", async () => {
      const user = await client.newUser(contract.highestTier.name);
      for (const tier of contract.tiers) {
        const { reply, before, after } = await timedCreate(user.token, { tier: tier.name });
        expectJson(reply, 201);
        expect(reply.body.status).toBe("active");
        expectCapped(reply.body.expiresAt, before, after, `expiresAt (tier ${tier.name})`);
      }
      const { reply, before, after } = await timedCreate(user.token, { expiresAt: null });
      expectJson(reply, 201);
      expectCapped(reply.body.expiresAt, before, after, "expiresAt (asked for null)");
      // The key works, and lists with the expiry it was created with.
      expectStatus(await client.getProfile(reply.body.key, newSlug()), 200);
      const listed = await client.listKeys(user.token);
      const record = listed.body.data.find((key) => key.id === reply.body.id);
      expect(record?.expiresAt).toBe(reply.body.expiresAt);
    });

    it("keeps an expiry within the cap as asked, up to the cap itself", async () => {
      const user = await client.newUser();
      const halfway = new Date(Math.floor((now() + cap / 2) / 1000) * 1000).toISOString();
      const within = await client.createKey(user.token, {
        ...client.validCreateBody(),
        expiresAt: halfway,
      });
      expectJson(within, 201);
      expect(Date.parse(within.body.expiresAt!)).toBe(Date.parse(halfway));
      const atCap = iso(now() + cap - toleranceMs);
      const nearCap = await client.createKey(user.token, {
        ...client.validCreateBody(),
        expiresAt: atCap,
      });
      expectJson(nearCap, 201);
      expect(Date.parse(nearCap.body.expiresAt!)).toBe(Date.parse(atCap));
    });

    it("refuses an expiry past the cap: 422 validation_failed at expiresAt naming the latest allowed, creating nothing", async () => {
      const user = await client.newUser();
      const kept = await client.createKeyFor(user);
      const { reply, before, after } = await timedCreate(user.token, {
        expiresAt: iso(now() + cap + 3_600_000),
      });
      const issues = expectValidationIssues(reply);
      expect((reply.body as unknown as ErrorBody).code).toBe("validation_failed");
      expect(issues.map((issue) => issue.loc)).toEqual([["body", "expiresAt"]]);
      const issue = issueAt(issues, ["body", "expiresAt"]);
      expect(issue.type).toBe("value_error");
      // The message names the key's tier and the latest expiry the cap allows.
      expect(issue.msg).toContain(`'${contract.lowestTier.name}'`);
      const latest = isoTimePattern.exec(issue.msg)?.[0];
      expect(latest, `a time in ${JSON.stringify(issue.msg)}`).toBeDefined();
      expectCapped(latest, before, after, "the latest expiry the message names");
      const listed = await client.listKeys(user.token);
      expect(listed.body.data.map((key) => key.id)).toEqual([kept.id]);
    });

    if (options.organizations) {
      it("caps an organization's keys too", async () => {
        const organizationId = `org_${crypto.randomUUID()}`;
        const tier = contract.highestTier.name;
        const admin = await client.newUser(tier, {
          orgs: [{ id: organizationId, role: "admin", tier }],
        });
        const { reply, before, after } = await timedCreate(admin.token, { organizationId });
        expectJson(reply, 201);
        expectCapped(reply.body.expiresAt, before, after);
      });
    }

    it("keeps the expiry through a rotation", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      expect(key.expiresAt).not.toBeNull();
      const rotated = await client.rotateKey(user.token, key.id);
      expectJson(rotated, 200);
      expect(rotated.body.expiresAt).toBe(key.expiresAt);
      expectStatus(await client.getProfile(rotated.body.key, newSlug()), 200);
    });

    if (options.keyUpdates) {
      it("refuses to change the expiry with PATCH, to a later time or to none (422 extra_forbidden), changing nothing", async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        for (const expiresAt of [iso(now() + 10 * cap), null]) {
          const reply = await client.updateKey(user.token, key.id, { expiresAt });
          const issue = issueAt(expectValidationIssues(reply), ["body", "expiresAt"]);
          expect(issue.type).toBe("extra_forbidden");
        }
        const listed = await client.listKeys(user.token);
        expect(listed.body.data[0]?.expiresAt).toBe(key.expiresAt);
      });
    }
  });
}
