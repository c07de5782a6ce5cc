/**
 * `POST /api/v1/completions` (demo contract v0.4) against an example's own app, served on a free
 * port with the demo's whole configuration on an in-memory store (`describeCompletions`), or
 * against any running example given its operator's part (`describeCompletionsOn`: the Workers
 * example in workerd, on Durable Objects): it reserves `max_tokens` from the
 * key's credits (held while the stream runs), streams `use` chunks of `text/event-stream` and
 * settles `use`; a key whose credits cannot cover the hold gets 429 `credits_exhausted` and spends
 * nothing; a client that aborts mid-stream pays for the chunks sent (at least what it read, less
 * than the whole); a key without credits is limited as any request; a key without
 * `completions:write` gets 403, a malformed body 422 spending nothing.
 *
 * What was spent is read from the key's credits (its usage report) once its holds are gone
 * (`budgets.usage(keyId).held` is 0, as the operator reads it): waits are on outcomes, never on time.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPLETIONS_PATH } from "../src/completions/completions-contract.js";
import { loadDemoConfig } from "../src/config.js";
import { type DemoKeyward, demoKeywardOptions } from "../src/create-demo.js";

export interface ServedApp {
  origin: string;
  close(): Promise<void>;
}

/** Serves the example's app for `keyward` on a free port of 127.0.0.1. */
export type ServeApp = (keyward: DemoKeyward) => Promise<ServedApp>;

/**
 * An example serving the route, and what the suite does as its operator: grant credits (never
 * reachable through the HTTP API), read the credits left and what the key's holds hold.
 */
export interface CompletionsTarget {
  origin: string;
  /** A key of `owner` with `scopes` and, when given, `credits` granted. */
  createKey(
    owner: string,
    scopes: string[],
    credits?: number,
  ): Promise<{ id: string; key: string }>;
  /** The key's credits left, or undefined when it has none. */
  creditsLeft(owner: string, keyId: string): Promise<number | undefined>;
  /** What the key's holds still hold. */
  held(keyId: string): Promise<number | undefined>;
  close(): Promise<void>;
}

/** The suite on an example's app served in this process, its operator the app's own instance. */
export function describeCompletions(name: string, serve: ServeApp): void {
  describeCompletionsOn(name, async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      ...demoKeywardOptions(loadDemoConfig({})),
      logger: false,
      onError: () => {},
    });
    const served = await serve(keyward);
    return {
      origin: served.origin,
      async createKey(owner, scopes, credits) {
        const { id, key } = await keyward.keys.create({
          ownerId: owner,
          accountTier: "enterprise",
          name: "completions",
          scopes,
          tier: "enterprise",
        });
        if (credits !== undefined)
          await keyward.keys.setLimits(id, { credits: { remaining: credits } });
        return { id, key };
      },
      creditsLeft: async (owner, keyId) =>
        (await keyward.keys.usage(owner, keyId)).credits?.remaining,
      held: async (keyId) => (await keyward.budgets.usage(keyId))?.held,
      async close() {
        await served.close();
        await keyward.close();
      },
    };
  });
}

/** The suite on any running example, given what it does as the example's operator. */
export function describeCompletionsOn(name: string, start: () => Promise<CompletionsTarget>): void {
  describe(`${name}: POST ${COMPLETIONS_PATH}`, () => {
    let target: CompletionsTarget;
    const owner = `user_${crypto.randomUUID()}`;

    beforeAll(async () => {
      target = await start();
    }, 60_000);
    afterAll(async () => {
      await target?.close();
    });

    const createKey = (credits?: number, scopes = ["completions:write"]) =>
      target.createKey(owner, scopes, credits);
    const creditsLeft = (id: string) => target.creditsLeft(owner, id);
    /** Resolves once the key's holds are all settled or released. */
    const holdsGone = (id: string) =>
      expect.poll(() => target.held(id), { timeout: 30_000 }).toBe(0);
    const post = (key: string | undefined, body: unknown, signal?: AbortSignal) =>
      fetch(`${target.origin}${COMPLETIONS_PATH}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    /** Reads events off the stream until `stopAfter` of them came (or it ended). */
    const readEvents = async (response: Response, stopAfter = Number.POSITIVE_INFINITY) => {
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      const events = () => text.split("\n\n").filter((event) => event.startsWith("data: "));
      while (events().length < stopAfter) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return { events: events(), text, reader };
    };

    it("holds max_tokens while it streams, then settles what it used", async () => {
      const { id, key } = await createKey(2_000);
      // 500 chunks, 5 ms apart: the stream runs for 2.5 s at least, so the balance is read while
      // the hold is open however slow the operator's read is (a server does not wait for its
      // client to read: with 5 chunks the stream was over, and settled, before a read through
      // Miniflare's proxy of the Durable Objects came back).
      const response = await post(key, { max_tokens: 1_000, use: 500 });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(response.headers.get("x-ratelimit-limit")).not.toBeNull();
      const first = await readEvents(response, 1);
      // The hold is taken from the balance up front.
      expect(await creditsLeft(id)).toBe(1_000);
      let text = first.text;
      for (;;) {
        const { done, value } = await first.reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const events = text.split("\n\n").filter(Boolean);
      expect(events).toHaveLength(500);
      events.forEach((event, index) => {
        expect(event.split("\n")).toHaveLength(1);
        expect(JSON.parse(event.slice("data: ".length))).toMatchObject({ index });
      });
      await holdsGone(id);
      expect(await creditsLeft(id)).toBe(1_500);
    });

    it("answers 429 credits_exhausted, spending nothing, when the credits cannot cover max_tokens", async () => {
      const { id, key } = await createKey(50);
      const refused = await post(key, { max_tokens: 100, use: 1 });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: "credits_exhausted" });
      expect(await creditsLeft(id)).toBe(50);
      // What is left still serves a request that fits.
      const served = await post(key, { max_tokens: 50, use: 50 });
      expect(served.status).toBe(200);
      expect((await readEvents(served)).events).toHaveLength(50);
      await holdsGone(id);
      expect(await creditsLeft(id)).toBe(0);
      const spent = await post(key, { max_tokens: 1, use: 1 });
      expect(spent.status).toBe(429);
      await spent.body?.cancel();
    });

    it("charges a client that aborts mid-stream for the chunks sent, not for the whole", async () => {
      const { id, key } = await createKey(1_000);
      const abort = new AbortController();
      const response = await post(key, { max_tokens: 400, use: 400 }, abort.signal);
      expect(response.status).toBe(200);
      const { events } = await readEvents(response, 3);
      abort.abort();
      await holdsGone(id);
      const spent = 1_000 - (await creditsLeft(id))!;
      expect(spent).toBeGreaterThanOrEqual(events.length);
      expect(spent).toBeLessThan(400);
    });

    it("limits a key without credits as any request: nothing held, the stream served", async () => {
      const { id, key } = await createKey();
      const response = await post(key, { max_tokens: 10_000_000, use: 3 });
      expect(response.status).toBe(200);
      expect((await readEvents(response)).events).toHaveLength(3);
      expect(await creditsLeft(id)).toBeUndefined();
      expect(await target.held(id)).toBe(0);
    });

    it("refuses no key (401), a key without completions:write (403), a malformed body (422)", async () => {
      const missing = await post(undefined, { max_tokens: 1, use: 1 });
      expect(missing.status).toBe(401);
      await missing.body?.cancel();
      const other = await createKey(100, ["profile:read"]);
      const forbidden = await post(other.key, { max_tokens: 1, use: 1 });
      expect(forbidden.status).toBe(403);
      expect(await forbidden.json()).toMatchObject({ code: "insufficient_scope" });

      const { id, key } = await createKey(100);
      for (const [body, loc] of [
        [{ max_tokens: 5, use: 6 }, ["body", "use"]],
        [{ max_tokens: 5 }, ["body", "use"]],
        [{ max_tokens: 1.5, use: 1 }, ["body", "max_tokens"]],
        [{ max_tokens: 5, use: -1 }, ["body", "use"]],
        [[1, 2], ["body"]],
      ] as const) {
        const refused = await post(key, body);
        expect(refused.status, JSON.stringify(body)).toBe(422);
        const answer = (await refused.json()) as { code: string; detail: { loc: unknown[] }[] };
        expect(answer.code).toBe("validation_failed");
        expect(answer.detail.map((issue) => issue.loc)).toContainEqual(loc);
      }
      await holdsGone(id);
      expect(await creditsLeft(id)).toBe(100);
    });
  });
}
