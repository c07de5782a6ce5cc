import { createKeyward, memoryStore } from "@keyward/core";
import { importBaselineCore } from "./support/baseline-core.js";
const baseline = await importBaselineCore("80da620");
const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const config = { scopes: { "profile:read": "R" }, tiers: { free: unlimited, pro: unlimited } };
const opts = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
async function prep(make: any, store: any) {
  const k = make({ ...config, store, jwt: false, logger: false });
  const { key } = await k.keys.create({ ownerId: "a", accountTier: "pro", name: "b", scopes: ["profile:read"], tier: "pro" });
  const h = `Bearer ${key}`;
  return () => k.verify(h, opts);
}
const after = await prep(createKeyward, memoryStore());
const before = await prep(baseline.createKeyward, baseline.memoryStore());
async function time(f: () => Promise<unknown>, n: number) {
  const t = performance.now();
  for (let i = 0; i < n; i++) await f();
  return ((performance.now() - t) * 1000) / n;
}
for (let round = 0; round < 3; round++) { await time(before, 50_000); await time(after, 50_000); }
const b: number[] = [], a: number[] = [];
for (let round = 0; round < 8; round++) { b.push(await time(before, 100_000)); a.push(await time(after, 100_000)); }
const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
console.log("before µs", b.map((x) => x.toFixed(2)).join(" "), "median", med(b).toFixed(2));
console.log("after  µs", a.map((x) => x.toFixed(2)).join(" "), "median", med(a).toFixed(2));
console.log("ratio after/before", (med(a) / med(b)).toFixed(3));
