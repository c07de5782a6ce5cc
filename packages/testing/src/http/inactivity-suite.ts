import type { KeywardEvent } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { createSuiteClient, newSlug, type TestUser } from "./client.js";
import { expectErrorDetail, expectJson, expectStatus } from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";
import type { InactivitySuiteOptions } from "./policy-options.js";

interface EventPage {
  data: KeywardEvent[];
  nextCursor: string | null;
}

/**
 * `disableAfterUnused` over HTTP, on a clock the host lets the suite move: a key left unused past
 * the limit is disabled by the next scan (`key.disabled`, actor `system`), after a `key.inactive`
 * warning; a key used or rotated the day before is not, nor is a revoked one; a second scan
 * changes nothing and writes nothing. With `keyUpdates`, a key its owner enables again after the
 * disable is counted from then: the next scan leaves it alone.
 *
 * Every JWT is minted at the implementation's `now`, again after each move of the clock (a token
 * minted before a move of days would have expired), so the suite never depends on the system
 * clock agreeing with the implementation's.
 */
export function inactivitySuite(options: HttpSuiteOptions, policy: InactivitySuiteOptions): void {
  const client = createSuiteClient({ ...options, fetch: policy.fetch }, policy);
  const limit = policy.disableAfterUnusedMs;
  const warning = policy.warningMs ?? 7 * 86_400_000;
  /** "The day before": a day, or a tenth of a limit shorter than ten days. */
  const step = Math.min(86_400_000, Math.floor(limit / 10));

  /** The same user, with a token valid at the implementation's time. */
  const signIn = async (user: TestUser) =>
    (await client.userWithId(user.id, user.tier ?? null)).token;
  const statusOf = async (user: TestUser) => {
    const listed = await client.listKeys(await signIn(user));
    expectJson(listed, 200);
    return new Map(listed.body.data.map((key) => [key.id, key.status]));
  };
  const eventsOf = async (user: TestUser, keyId: string) => {
    const reply = await client.send<EventPage>(
      "GET",
      `${client.basePath}/${encodeURIComponent(keyId)}/events`,
      { token: await signIn(user) },
    );
    expectJson(reply, 200);
    return reply.body.data;
  };
  const disabledEvents = async (user: TestUser, keyId: string) =>
    (await eventsOf(user, keyId)).filter((event) => event.type === "key.disabled");

  describe("disableAfterUnused (inactivity)", () => {
    it("disables a key unused past the limit at the next scan; one used or rotated the day before, or revoked, is left alone", async () => {
      const user = await client.newUser();
      const stale = await client.createKeyFor(user);
      const used = await client.createKeyFor(user);
      const rotated = await client.createKeyFor(user);
      const revoked = await client.createKeyFor(user);
      expectJson(await client.revokeKey(user.token, revoked.id), 200);

      await policy.advance(limit - step);
      expectStatus(await client.getProfile(used.key, newSlug()), 200);
      const rotation = await client.rotateKey(await signIn(user), rotated.id);
      expectJson(rotation, 200);
      await policy.advance(step);
      await policy.scan();

      const statuses = await statusOf(user);
      expect(statuses.get(stale.id)).toBe("disabled");
      expect(statuses.get(used.id)).toBe("active");
      expect(statuses.get(rotated.id)).toBe("active");
      expect(statuses.get(revoked.id)).toBe("revoked");
      // What any disabled key gets on the host's route; the others still work.
      const refused = await client.getProfile(stale.key, newSlug());
      expect(expectErrorDetail(refused, 401)).toBe("API key is disabled");
      expectStatus(await client.getProfile(used.key, newSlug()), 200);
      expectStatus(await client.getProfile(rotation.body.key, newSlug()), 200);

      if (options.events) {
        const [disabled, ...more] = await disabledEvents(user, stale.id);
        expect(more).toEqual([]);
        expect(disabled).toMatchObject({
          type: "key.disabled",
          keyId: stale.id,
          owner: { type: "user", id: user.id },
          actor: { type: "system" },
        });
        for (const key of [used, rotated, revoked]) {
          expect(await disabledEvents(user, key.id), key.id).toEqual([]);
        }
      }

      // Scanned again: nothing more to do, and nothing more written.
      await policy.scan();
      expect(await statusOf(user)).toEqual(statuses);
      if (options.events) expect(await disabledEvents(user, stale.id)).toHaveLength(1);
    });

    if (options.keyUpdates) {
      it("counts enabling a disabled key (PATCH enabled: true) as a sign of life: the next scan leaves it enabled", async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        await policy.advance(limit);
        await policy.scan();
        expect((await statusOf(user)).get(key.id)).toBe("disabled");

        await policy.advance(step);
        const enabled = await client.updateKey(await signIn(user), key.id, { enabled: true });
        expectJson(enabled, 200);
        expect(enabled.body.status).toBe("active");
        // Unused since the enabling, but not yet for the whole limit: left alone.
        await policy.advance(limit - step);
        await policy.scan();
        expect((await statusOf(user)).get(key.id)).toBe("active");
        // The limit after the enabling: disabled again.
        await policy.advance(step);
        await policy.scan();
        expect((await statusOf(user)).get(key.id)).toBe("disabled");
        const refused = await client.getProfile(key.key, newSlug());
        expect(expectErrorDetail(refused, 401)).toBe("API key is disabled");

        if (options.events) {
          const changes = (await eventsOf(user, key.id))
            .filter((event) => event.type === "key.disabled" || event.type === "key.enabled")
            .map((event) => [event.type, event.actor.type]);
          expect(changes).toEqual([
            ["key.disabled", "system"],
            ["key.enabled", "user"],
            ["key.disabled", "system"],
          ]);
        }
      });
    }

    if (options.events && warning > 0) {
      it("warns with key.inactive (actor system) once, ahead of the disable", async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        const disablesAt = new Date(Date.parse(key.createdAt) + limit).toISOString();

        await policy.advance(limit - warning);
        await policy.scan();
        const warned = await eventsOf(user, key.id);
        expect(warned.map((event) => event.type)).toEqual(["key.inactive", "key.created"]);
        expect(warned[0]).toMatchObject({
          keyId: key.id,
          actor: { type: "system" },
          data: { lastUsedAt: null, disablesAt },
        });
        expect((await statusOf(user)).get(key.id)).toBe("active");
        await policy.scan();
        expect(await eventsOf(user, key.id)).toHaveLength(2);

        await policy.advance(warning);
        await policy.scan();
        const types = (await eventsOf(user, key.id)).map((event) => event.type);
        expect(types).toEqual(["key.disabled", "key.inactive", "key.created"]);
        expect((await statusOf(user)).get(key.id)).toBe("disabled");
      });
    }
  });
}
