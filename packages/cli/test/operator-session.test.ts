/**
 * An operator's session, end to end, across two processes on PostgreSQL and Redis: the CLI (a child
 * process per command, loading the application through `--app`) creates, rotates with a grace and
 * revokes a user's key and an organization's key, in the live and the test environment, while the
 * same application runs in this process, as a running instance would. Every change must reach
 * the running instance (its keys verify and stop verifying), the key's audit log with actor
 * `operator`, and a real HTTP webhook receiver, signed per Standard Webhooks. Only the CLI's
 * instance has webhooks configured here, so every delivery the receiver gets was sent by the CLI's
 * process.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { KeywardEvent, Owner } from "@keyward/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type Application,
  applicationEnvironment,
  dropNaming,
  openApplication,
  uniqueNaming,
  webhookSecret,
} from "./application.js";
import { runCli, testApp } from "./run-cli.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server that answers 204 to every POST and keeps what it received. */
async function webhookReceiver() {
  const received: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/keyward`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Whether a delivery carries a valid Standard Webhooks signature: checked here with node:crypto,
 * independently of the signer Keyward uses.
 */
function signatureHolds(delivery: Delivery): boolean {
  const id = String(delivery.headers["webhook-id"]);
  const timestamp = String(delivery.headers["webhook-timestamp"]);
  const key = Buffer.from(webhookSecret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${delivery.body}`).digest();
  return String(delivery.headers["webhook-signature"])
    .split(" ")
    .some((entry) => {
      const [version, signature] = entry.split(",");
      const given = Buffer.from(signature ?? "", "base64");
      return (
        version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)
      );
    });
}

const naming = uniqueNaming("session");
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
let app: Application;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  receiver = await webhookReceiver();
  // The running instance: the same application, without webhooks.
  app = await openApplication({ backends: "both", ...naming });
  cliEnv = applicationEnvironment({ backends: "both", ...naming, webhookUrl: receiver.url });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await dropNaming(naming);
});

const keyward = async (...args: string[]) => {
  const result = await runCli([...args, "--app", testApp], cliEnv);
  expect(result.code, `keyward ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

const otherEnvironment = { live: "test", test: "live" } as const;

/** What the running instance answers for `secret` on a route of `environment`. */
const verifies = async (secret: string, environment: "live" | "test") =>
  (
    await app.keyward.verify(`Bearer ${secret}`, {
      scopes: ["profile:read"],
      route: "GET /profiles/:slug",
      environment,
    })
  ).ok;

const userOwner = (): Owner => ({ type: "user", id: `user_${crypto.randomUUID()}` });
const organization = (): Owner => ({ type: "organization", id: `org_${crypto.randomUUID()}` });
const sessions: [string, "live" | "test", Owner, string[]][] = [
  ["a user's key", "live", userOwner(), []],
  ["a user's key", "test", userOwner(), []],
  ["an organization's key", "live", organization(), ["--created-by", "alice"]],
  ["an organization's key", "test", organization(), ["--created-by", "alice"]],
];

describe("keyward, an operator's session across two processes on PostgreSQL and Redis", () => {
  it.each(sessions)(
    "%s in the %s environment: create, rotate with grace, revoke; every change in the events with actor operator, at the webhook receiver, and at the running instance",
    async (_kind, environment, owner, creator) => {
      const ownerOption = owner.type === "user" ? "--owner" : "--org";
      const prefix = `sk_${environment}_`;

      const created = JSON.parse(
        await keyward(
          "keys",
          "create",
          ownerOption,
          owner.id,
          ...creator,
          "--name",
          "deploy bot",
          "--scopes",
          "profile:read",
          "--tier",
          "free",
          "--environment",
          environment,
          "--json",
        ),
      ) as { id: string; key: string; environment?: string; owner?: Owner };
      expect(created.key.startsWith(prefix)).toBe(true);
      if (owner.type === "organization") expect(created.owner).toEqual(owner);
      expect(await verifies(created.key, environment)).toBe(true);
      expect(await verifies(created.key, otherEnvironment[environment])).toBe(false);

      // The owner's listing: an organization's keys under --org, not under --owner.
      const listed = JSON.parse(await keyward("keys", "list", ownerOption, owner.id, "--json"));
      expect(listed.data.map((key: { id: string }) => key.id)).toEqual([created.id]);
      if (owner.type === "organization") {
        expect(await keyward("keys", "list", "--owner", owner.id)).toBe(
          `no keys for user ${owner.id}\n`,
        );
      }

      // Rotation keeps the key in its environment: a test key's new secret is a test secret.
      const rotated = JSON.parse(
        await keyward("keys", "rotate", created.id, "--grace", "3600", "--json"),
      ) as { key: string; previousSecretExpiresAt?: string; environment?: string };
      expect(rotated.key.startsWith(prefix)).toBe(true);
      expect(rotated.environment).toBe(created.environment);
      expect(rotated.previousSecretExpiresAt).toEqual(expect.any(String));
      await vi.waitFor(async () => expect(await verifies(rotated.key, environment)).toBe(true));
      expect(await verifies(created.key, environment)).toBe(true);
      expect(await verifies(rotated.key, otherEnvironment[environment])).toBe(false);

      // The running instance had both secrets verified (and cached): the CLI's revocation reaches it.
      await keyward("keys", "revoke", created.id);
      await vi.waitFor(
        async () => {
          expect(await verifies(rotated.key, environment)).toBe(false);
          expect(await verifies(created.key, environment)).toBe(false);
        },
        { timeout: 5_000, interval: 50 },
      );

      // The audit log, as the application reads it and as `keyward events` prints it.
      const { data: events } = await app.keyward.events.list({ owner, keyId: created.id });
      expect(events.map((event) => [event.type, event.actor])).toEqual([
        ["key.revoked", { type: "operator" }],
        ["key.rotated", { type: "operator" }],
        ["key.created", { type: "operator" }],
      ]);
      expect(events.every((event) => event.owner.type === owner.type)).toBe(true);
      const printed = JSON.parse(await keyward("events", created.id, "--json")) as {
        data: KeywardEvent[];
        nextCursor: string | null;
      };
      expect(printed).toEqual({ data: events, nextCursor: null });
      const text = await keyward("events", created.id);
      expect(text).toMatch(/^OCCURRED +TYPE +ACTOR +DATA$/m);
      expect(text).toMatch(/ key\.revoked +operator +\{\}$/m);
      expect(text).toMatch(/ key\.rotated +operator +\{"hint":/m);
      expect(text).toMatch(/ key\.created +operator +\{"hint":/m);

      // Each change reached the receiver, signed, sent by the CLI's process before it exited.
      const delivered = receiver.received.filter(
        (delivery) => (JSON.parse(delivery.body) as KeywardEvent).keyId === created.id,
      );
      expect(delivered.map((delivery) => delivery.headers["webhook-id"]).sort()).toEqual(
        events.map((event) => event.id).sort(),
      );
      for (const delivery of delivered) {
        expect(signatureHolds(delivery)).toBe(true);
        const event = JSON.parse(delivery.body) as KeywardEvent;
        expect(event).toEqual(events.find((logged) => logged.id === event.id));
      }
    },
  );
});
