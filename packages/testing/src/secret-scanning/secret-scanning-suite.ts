/**
 * The secret-scanning conformance suite: `POST {basePath}/secret-scanning` as GitHub calls it,
 * against a real key server (`startScannerKeyServer`). Every adapter runs it, so it also proves
 * each one hands Keyward the report's bytes unchanged: a re-serialised body fails the signature.
 */
import type { Keyward, KeywardEvent } from "@keyward/core";
import type { EventsApi } from "@keyward/core/events";
import type { OpenApiApi } from "@keyward/core/openapi";
import type { SecretScanningConfig } from "@keyward/core/secret-scanning";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenApiResponseCheck, openApiResponseCheck } from "../http/openapi-check.js";
import { type ScannerKeyServer, startScannerKeyServer } from "./scanner-key-server.js";

/** One implementation under test, configured with the demo contract and `secretScanning`. */
export interface SecretScanningHost {
  /** Sends a request to the implementation (its adapter, over HTTP or in process). */
  fetch(request: Request): Promise<Response>;
  /**
   * The Keyward instance behind it, with `events()` and `openapi()` listed: the suite makes keys and
   * reads their state and events through it.
   */
  keyward: Keyward & { events: EventsApi; openapi: OpenApiApi };
  close(): Promise<void>;
}

export interface SecretScanningSuiteOptions {
  /**
   * Starts the implementation with `secretScanning(config)` among its features, the demo contract's
   * environments (`live` and `test`) and `events`. Called once per configuration the suite needs.
   */
  serve(config: SecretScanningConfig): Promise<SecretScanningHost>;
  /** Where the endpoints live; default `/api/v1/api-keys`. */
  basePath?: string;
  /**
   * The host parses JSON before Keyward sees the request (Express's `express.json()` in front of
   * the router): malformed JSON is then the host parser's to answer (body-parser: 400), not 422.
   */
  hostParsesJsonFirst?: boolean;
}

const origin = "http://keyward.test";
const maxBodyBytes = 8 * 1024;
/** What the suite's own `verify` calls name, so usage is not recorded under "ANY *". */
const checkRoute = { route: "GET /leak-check" };

interface Label {
  token_raw: string;
  token_type: string;
  label: "true_positive" | "false_positive";
}

/**
 * Registers the suite with vitest.
 * @example
 * describeSecretScanning("fetch adapter", {
 *   serve: async (config) => {
 *     const keyward = createKeyward({
 *       store: memoryStore(),
 *       ...demoKeywardConfig(secret, { features: [secretScanning(config)] }),
 *     });
 *     return { fetch: (request) => keyward.handle(request), keyward, close: () => keyward.close() };
 *   },
 * });
 */
export function describeSecretScanning(name: string, options: SecretScanningSuiteOptions): void {
  const path = `${options.basePath ?? "/api/v1/api-keys"}/secret-scanning`;

  describe(`secret scanning: ${name}`, () => {
    let keys: ScannerKeyServer;
    let host: SecretScanningHost;
    let reporting: SecretScanningHost;

    beforeAll(async () => {
      keys = await startScannerKeyServer();
      host = await options.serve({ keysUrl: keys.url, maxBodyBytes });
      reporting = await options.serve({ keysUrl: keys.url, action: "report" });
    });
    afterAll(async () => {
      await host?.close();
      await reporting?.close();
      await keys?.close();
    });

    // Every answer must also be one the instance's OpenAPI document describes.
    const checks = new Map<SecretScanningHost, OpenApiResponseCheck>();
    const send = async (
      target: SecretScanningHost,
      body: string,
      headers: Record<string, string>,
      method = "POST",
    ) => {
      const reply = await target.fetch(
        new Request(`${origin}${path}`, {
          method,
          headers: { "content-type": "application/json", ...headers },
          ...(method === "GET" ? {} : { body }),
        }),
      );
      // A host parser's own 400 is the host's answer, not Keyward's: the document does not cover it.
      if (!(options.hostParsesJsonFirst && reply.status === 400)) {
        let check = checks.get(target);
        if (!check) {
          check = openApiResponseCheck(target.keyward.openapi());
          checks.set(target, check);
        }
        const text = await reply.clone().text();
        const parsed = text === "" ? undefined : (JSON.parse(text) as unknown);
        const problems = check(method, path, {
          status: reply.status,
          headers: reply.headers,
          text,
          body: parsed,
        });
        expect(problems, `${method} ${path} → ${reply.status}`).toEqual([]);
      }
      return reply;
    };
    const report = async (target: SecretScanningHost, body: string) =>
      send(target, body, await keys.sign(body));

    const newKey = async (target: SecretScanningHost, environment?: string) => {
      const ownerId = `user_${crypto.randomUUID()}`;
      const created = await target.keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "leak test",
        scopes: ["profile:read"],
        tier: "free",
        ...(environment ? { environment } : {}),
      });
      return { ownerId, id: created.id, key: created.key };
    };
    const statusOf = async (target: SecretScanningHost, key: { ownerId: string; id: string }) =>
      (await target.keyward.keys.list(key.ownerId)).find((record) => record.id === key.id)?.status;
    const eventsOf = async (target: SecretScanningHost, key: { ownerId: string; id: string }) =>
      (await target.keyward.events.list({ owner: key.ownerId, keyId: key.id })).data;
    const leaks = (events: KeywardEvent[]) => events.filter((event) => event.type === "key.leaked");

    const expectSignatureRefused = async (reply: Response) => {
      expect(reply.status).toBe(401);
      expect(reply.headers.get("www-authenticate")).toBeNull();
      expect(await reply.json()).toEqual({ detail: expect.any(String), code: "invalid_signature" });
    };

    it("refuses a report without signature headers (401) and changes nothing", async () => {
      const leaked = await newKey(host);
      const body = JSON.stringify([{ token: leaked.key, type: "keyward_api_key" }]);
      await expectSignatureRefused(await send(host, body, {}));
      const headers = await keys.sign(body);
      await expectSignatureRefused(
        await send(host, body, {
          "Github-Public-Key-Identifier": headers["Github-Public-Key-Identifier"]!,
        }),
      );
      expect(await statusOf(host, leaked)).toBe("active");
    });

    it("refuses a bad signature (401): another body's, garbage, an unknown key", async () => {
      const leaked = await newKey(host);
      const body = JSON.stringify([{ token: leaked.key, type: "keyward_api_key" }]);
      const other = await keys.sign(`${body} `);
      await expectSignatureRefused(await send(host, body, other));
      const good = await keys.sign(body);
      await expectSignatureRefused(
        await send(host, body, { ...good, "Github-Public-Key-Signature": "not base64 at all!" }),
      );
      await expectSignatureRefused(
        await send(host, body, { ...good, "Github-Public-Key-Signature": btoa("0123456789") }),
      );
      await expectSignatureRefused(
        await send(host, body, { ...good, "Github-Public-Key-Identifier": "f".repeat(64) }),
      );
      expect(await statusOf(host, leaked)).toBe("active");
    });

    it("refuses a report over its size limit (413), reading no further", async () => {
      const body = JSON.stringify([{ token: "x".repeat(maxBodyBytes), type: "keyward_api_key" }]);
      const reply = await report(host, body);
      expect(reply.status).toBe(413);
      expect(await reply.json()).toMatchObject({ code: "body_too_large" });
      // Without a signature it is refused before its body is read at all: 413 when the length was
      // declared (over HTTP), else 401 from the missing headers.
      expect([401, 413]).toContain((await send(host, body, {})).status);
    });

    it("refuses malformed JSON and a wrong shape with 422 once signed", async () => {
      const broken = await report(host, '[{"token": ');
      if (options.hostParsesJsonFirst) {
        expect(broken.status).toBe(400);
      } else {
        expect(broken.status).toBe(422);
        expect(await broken.json()).toMatchObject({
          code: "validation_failed",
          detail: [{ loc: ["body"], type: "json_invalid" }],
        });
      }
      const shape = await report(host, JSON.stringify([{ token: 42 }]));
      expect(shape.status).toBe(422);
      const { detail } = (await shape.json()) as { detail: { loc: unknown[] }[] };
      expect(detail.map((issue) => issue.loc)).toEqual(
        expect.arrayContaining([
          ["body", 0, "token"],
          ["body", 0, "type"],
        ]),
      );
      const notAList = await report(host, JSON.stringify({ token: "x", type: "y" }));
      expect(notAList.status).toBe(422);
    });

    it("answers 405 with Allow: POST for another method", async () => {
      const reply = await send(host, "", {}, "GET");
      expect(reply.status).toBe(405);
      expect(reply.headers.get("allow")).toBe("POST");
    });

    it("revokes exactly the leaked keys of a mixed batch and labels every token", async () => {
      const live = await newKey(host);
      const revokedBefore = await newKey(host);
      await host.keyward.keys.revoke(revokedBefore.ownerId, revokedBefore.id);
      const test = await newKey(host, "test");
      expect(test.key.startsWith("sk_test_")).toBe(true);
      const bystander = await newKey(host);
      const forged = forgeChecksum(bystander.key);
      const entries = [
        {
          token: live.key,
          type: "keyward_api_key",
          url: "https://github.com/o/r/blob/1/a.env",
          source: "content",
        },
        {
          token: revokedBefore.key,
          type: "keyward_api_key",
          url: "https://github.com/o/r/blob/1/b.env",
          source: "commit",
        },
        { token: forged, type: "keyward_api_key" },
        { token: `ghp_${"a".repeat(36)}`, type: "github_token" },
        { token: `sk_other_${bystander.key.slice(8)}`, type: "keyward_api_key" },
        { token: test.key, type: "keyward_api_key", url: null, source: null },
      ];
      const body = JSON.stringify(entries);
      const reply = await report(host, body);
      expect(reply.status).toBe(200);
      const labels = (await reply.json()) as Label[];
      expect(labels).toEqual(
        entries.map((entry, index) => ({
          token_raw: entry.token,
          token_type: entry.type,
          label: [0, 1, 5].includes(index) ? "true_positive" : "false_positive",
        })),
      );
      expect(await statusOf(host, live)).toBe("revoked");
      expect(await statusOf(host, test)).toBe("revoked");
      expect(await statusOf(host, revokedBefore)).toBe("revoked");
      expect(await statusOf(host, bystander)).toBe("active");
      expect((await host.keyward.verify(`Bearer ${live.key}`, checkRoute)).ok).toBe(false);
      expect((await host.keyward.verify(`Bearer ${bystander.key}`, checkRoute)).ok).toBe(true);

      const liveEvents = await eventsOf(host, live);
      const revocation = liveEvents.find((event) => event.type === "key.revoked");
      expect(revocation?.actor).toEqual({ type: "secret_scanner", id: "github" });
      expect(leaks(liveEvents).map((event) => [event.actor, event.data])).toEqual([
        [
          { type: "secret_scanner", id: "github" },
          {
            action: "revoked",
            hint: `sk_live_…${live.key.slice(-4)}`,
            tokenType: "keyward_api_key",
            url: entries[0]!.url,
            source: "content",
          },
        ],
      ]);
      expect(leaks(await eventsOf(host, revokedBefore)).map((event) => event.data)).toMatchObject([
        { action: "already_revoked", source: "commit" },
      ]);
      expect(leaks(await eventsOf(host, test)).map((event) => event.data)).toMatchObject([
        { action: "revoked", url: null, source: null },
      ]);
      expect(await eventsOf(host, bystander)).toHaveLength(1); // its creation only
      expect(JSON.stringify(liveEvents)).not.toContain(live.key);

      // GitHub repeats a report it is unsure we got: same labels, no second key.leaked.
      const again = await report(host, body);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(labels);
      expect(leaks(await eventsOf(host, live))).toHaveLength(1);
      expect(leaks(await eventsOf(host, revokedBefore))).toHaveLength(1);
    });

    it("keeps a report's evidence storable: a URL with U+0000 still revokes and writes key.leaked", async () => {
      const leaked = await newKey(host);
      const body = JSON.stringify([
        {
          token: leaked.key,
          type: "keyward_api_key",
          url: "https://github.com/o/r/blob/main/.env\u0000\ud800x",
          source: "content\u0000",
        },
      ]);
      for (let attempt = 0; attempt < 2; attempt++) {
        // GitHub retries what failed: both answers must be the same 200.
        const reply = await report(host, body);
        expect(reply.status).toBe(200);
        expect(((await reply.json()) as Label[]).map((entry) => entry.label)).toEqual([
          "true_positive",
        ]);
      }
      expect(await statusOf(host, leaked)).toBe("revoked");
      const leaks = (await eventsOf(host, leaked)).filter((event) => event.type === "key.leaked");
      expect(leaks).toHaveLength(1);
      expect(leaks[0]!.data).toMatchObject({
        url: "https://github.com/o/r/blob/main/.env\ufffd\ufffdx",
        source: "content\ufffd",
      });
    });

    it("in report-only mode leaves the key working and writes key.leaked once", async () => {
      const leaked = await newKey(reporting);
      const body = JSON.stringify([
        {
          token: leaked.key,
          type: "keyward_api_key",
          url: "https://github.com/o/r/1",
          source: "content",
        },
        { token: forgeChecksum(leaked.key), type: "keyward_api_key" },
      ]);
      for (let i = 0; i < 2; i++) {
        const reply = await report(reporting, body);
        expect(reply.status).toBe(200);
        expect(((await reply.json()) as Label[]).map((entry) => entry.label)).toEqual([
          "true_positive",
          "false_positive",
        ]);
      }
      expect(await statusOf(reporting, leaked)).toBe("active");
      expect((await reporting.keyward.verify(`Bearer ${leaked.key}`, checkRoute)).ok).toBe(true);
      const events = await eventsOf(reporting, leaked);
      expect(events.map((event) => event.type).sort()).toEqual(["key.created", "key.leaked"]);
      expect(leaks(events)[0]!.data).toMatchObject({
        action: "reported",
        url: "https://github.com/o/r/1",
      });
    });

    it("fetches GitHub's keys again for an identifier it does not know (key rotation)", async () => {
      const leaked = await newKey(host);
      const body = JSON.stringify([{ token: leaked.key, type: "keyward_api_key" }]);
      const before = keys.fetches;
      await keys.rotate();
      // Refetches for unknown identifiers are spaced at least a second apart.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const reply = await report(host, body);
      expect(reply.status).toBe(200);
      expect(keys.fetches).toBe(before + 1);
      expect(await statusOf(host, leaked)).toBe("revoked");
      // Made-up identifiers do not each cost a fetch.
      const signed = await keys.sign(body);
      for (let i = 0; i < 5; i++) {
        const forgedId = { ...signed, "Github-Public-Key-Identifier": `${i}`.repeat(64) };
        await expectSignatureRefused(await send(host, body, forgedId));
      }
      expect(keys.fetches).toBeLessThanOrEqual(before + 2);
    });

    it("answers 503 at once when the key server is down, and within its timeout when it hangs", async () => {
      const unreachable = await startScannerKeyServer();
      const down = await options.serve({ keysUrl: unreachable.url, keysTimeoutMs: 500 });
      try {
        const body = JSON.stringify([{ token: "sk_live_x", type: "keyward_api_key" }]);
        unreachable.setState("down");
        let started = Date.now();
        const refused = await send(down, body, await unreachable.sign(body));
        expect(refused.status).toBe(503);
        expect(await refused.json()).toMatchObject({ code: "scanner_keys_unavailable" });
        expect(Date.now() - started).toBeLessThan(2_000);
        unreachable.setState("hang");
        // A second apart: the refetch interval for an identifier never seen.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        started = Date.now();
        const hung = await send(down, body, await unreachable.sign(body));
        expect(hung.status).toBe(503);
        expect(Date.now() - started).toBeLessThan(3_000);
        unreachable.setState("up");
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        expect((await send(down, body, await unreachable.sign(body))).status).toBe(200);
      } finally {
        await down.close();
        await unreachable.close();
      }
    });
  });
}

/** The same key with its last checksum character changed: the right prefix, a wrong checksum. */
function forgeChecksum(key: string): string {
  const last = key.at(-1)!;
  return key.slice(0, -1) + (last === "A" ? "B" : "A");
}
