/**
 * `@keyward/cloudflare` in workerd on this machine (`examples/workers/src/workerd.ts`, the objects on
 * SQLite in a temporary folder): how many verifications a second one owner's object sustains, with
 * its keys' limits in that object (`limitObjects: "owner"`) and spread over one object per key
 * (`"key"`), and the latency a verification adds over the memory store, measured in the same
 * Worker in the same run. Not a test: figures for docs/benchmarks.md.
 *
 *   node --conditions=@keyward/source --import tsx bench/cloudflare-object.ts
 *
 * Each figure is timed from Node around one request that runs the whole loop inside the Worker
 * (workerd's clocks stand still while JavaScript runs, so they cannot time the memory store).
 */
import { runInWorkerd } from "../examples/workers/src/workerd.js";

const source = `
import { createKeyward, memoryStore } from "@keyward/core";
import { cloudflareStore } from "@keyward/cloudflare";
export { KeywardObject } from "@keyward/cloudflare";

const tiers = { free: { rateLimit: { limit: 1000000000, window: "1h" } } };
const subjects = new Map();

async function prepare(env, name, store) {
  const keyward = createKeyward({ store, scopes: { "profile:read": "Read" }, tiers, jwt: false, logger: false });
  const secrets = [];
  for (let i = 0; i < 8; i++) {
    const key = await keyward.keys.create({ ownerId: "owner-" + name, accountTier: "free", name: "k", scopes: ["profile:read"], tier: "free" });
    secrets.push(key.key);
  }
  subjects.set(name, { keyward, secrets });
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/prepare") {
      const run = url.searchParams.get("run");
      await prepare(env, "memory", memoryStore());
      await prepare(env, "owner", cloudflareStore({ namespace: env.KEYWARD, prefix: run + "o_" }));
      await prepare(env, "key", cloudflareStore({ namespace: env.KEYWARD, prefix: run + "k_", limitObjects: "key" }));
      return Response.json({ ok: true });
    }
    const { keyward, secrets } = subjects.get(url.searchParams.get("store"));
    const n = Number(url.searchParams.get("n"));
    const lanes = Number(url.searchParams.get("c"));
    const keys = Number(url.searchParams.get("keys") ?? secrets.length);
    let sent = 0;
    let admitted = 0;
    const lane = async () => {
      while (sent < n) {
        const secret = secrets[sent % keys];
        sent += 1;
        const result = await keyward.verify("Bearer " + secret, { route: "GET /p", scopes: ["profile:read"] });
        if (result.ok) admitted += 1;
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    return Response.json({ admitted });
  },
};
`;

const worker = await runInWorkerd({
  source,
  fromSource: true,
  durableObjects: true,
  onOutput: () => {},
});
const call = async (path: string) => {
  const started = performance.now();
  const response = await fetch(`${worker.origin}${path}`);
  const body = (await response.json()) as { admitted?: number };
  return { ms: performance.now() - started, body };
};

try {
  await call(`/prepare?run=${Date.now()}`);
  const perSecond = async (store: string, n: number, c: number, keys: number) => {
    await call(`/run?store=${store}&n=${Math.min(n, 200)}&c=${c}&keys=${keys}`); // warm
    const { ms, body } = await call(`/run?store=${store}&n=${n}&c=${c}&keys=${keys}`);
    if (body.admitted !== n) throw new Error(`${store}: ${body.admitted} of ${n} admitted`);
    return (n / ms) * 1000;
  };
  const perVerifyMs = async (store: string, n: number) => {
    await call(`/run?store=${store}&n=100&c=1&keys=1`);
    const { ms } = await call(`/run?store=${store}&n=${n}&c=1&keys=1`);
    return ms / n;
  };
  const rounds = 3;
  for (let round = 1; round <= rounds; round++) {
    const memory = await perVerifyMs("memory", 20_000);
    const durable = await perVerifyMs("owner", 1_000);
    const oneKey = await perSecond("owner", 3_000, 32, 1);
    const ownerObject = await perSecond("owner", 3_000, 32, 8);
    const keyObjects = await perSecond("key", 3_000, 32, 8);
    const memoryRate = await perSecond("memory", 50_000, 32, 8);
    console.log(
      `round ${round}: one verify, sequential: memory ${(memory * 1000).toFixed(1)} µs, Durable Objects ${(durable * 1000).toFixed(0)} µs (adds ${((durable - memory) * 1000).toFixed(0)} µs, ×${(durable / memory).toFixed(0)}); ` +
        `32 in flight: one owner's object ${oneKey.toFixed(0)}/s with 1 key, ${ownerObject.toFixed(0)}/s with 8 keys; ` +
        `8 keys in objects of their own ${keyObjects.toFixed(0)}/s (×${(keyObjects / ownerObject).toFixed(2)} the owner's object); memory ${memoryRate.toFixed(0)}/s`,
    );
  }
} finally {
  await worker.stop();
}
