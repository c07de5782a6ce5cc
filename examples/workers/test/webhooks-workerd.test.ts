/**
 * Webhooks inside `workerd`: the `standardwebhooks` signer bundles without Node built-ins and signs
 * there; `createKeyward` with webhooks runs at the module's top level, where Workers refuse timers,
 * and the deliverer starts on first use. The Worker's `fetch` option captures what would be sent;
 * this test verifies it with `standardwebhooks`' `Webhook.verify`, as a receiver would.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, runInWorkerd } from "../src/workerd.js";

const secret = `whsec_${Buffer.from("w".repeat(32)).toString("base64")}`;

const source = `
import { createKeyward, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { webhooks } from "@keyward/webhooks";

const sent = [];
const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: false,
  logger: false,
  features: [
    events({ pruneIntervalMs: false }),
    webhooks({
      endpoints: [{ id: "capture", url: "https://receiver.example/hooks", secret: ${JSON.stringify(secret)} }],
      fetch: async (url, init) => {
        sent.push({ url: String(url), headers: Object.fromEntries(new Headers(init.headers)), body: init.body });
        return new Response(null, { status: 204 });
      },
    }),
  ],
});

export default {
  async fetch() {
    await keyward.keys.create({ ownerId: "u1", accountTier: "free", name: "k", scopes: ["profile:read"], tier: "free" });
    const summary = await keyward.webhooks.deliverNow();
    const { data } = await keyward.webhooks.deliveries();
    return Response.json({ summary, sent, deliveries: data });
  },
};
`;

let worker: RunningWorker;
let output = "";

beforeAll(async () => {
  worker = await runInWorkerd({ source, fromSource: true, onOutput: (text) => (output += text) });
}, 60_000);
afterAll(async () => {
  await worker?.stop();
});

describe("webhooks in workerd", () => {
  it("signs and delivers from a Worker; the signature verifies with standardwebhooks", async () => {
    const response = await fetch(`${worker.origin}/`);
    expect(response.status, output).toBe(200);
    const { sent, deliveries } = (await response.json()) as {
      sent: { url: string; headers: Record<string, string>; body: string }[];
      deliveries: { status: string; eventId: string }[];
    };
    // The change's own nudge or deliverNow sent it: once, either way.
    expect(sent).toHaveLength(1);
    const [request] = sent;
    const event = new Webhook(secret).verify(request!.body, request!.headers) as {
      id: string;
      type: string;
    };
    expect(event.type).toBe("key.created");
    expect(request!.headers["webhook-id"]).toBe(event.id);
    expect(deliveries).toEqual([
      expect.objectContaining({ eventId: event.id, status: "delivered" }),
    ]);
  });
});
