/**
 * Layered limits on the memory store: `verify()` of a key whose tier adds the owner's shared
 * allowance and a monthly quota (three layers, one atomic step), against the same `verify()` with
 * the per-key limit only (v0.1's single-layer path). Same process, same mitata run; the summary
 * prints the ratio. Goal: at most 1.5× the key-only time.
 *
 * @example
 * npx pnpm@10 bench layers.bench.ts
 */
import { createKeyward, memoryStore, type TierConfig } from "@keyward/core";
import { bench, do_not_optimize, group, summary } from "mitata";
import { admittedBenchKey, benchVerifyOptions } from "./support/verify-subjects.js";

// Limits high enough that no run is ever refused: the benchmark measures admitted requests.
const huge = 1_000_000_000;
const keyOnly: TierConfig = { rateLimit: { limit: huge, window: "1m" } };
const layered: TierConfig = {
  rateLimit: { limit: huge, window: "1m" },
  ownerRateLimit: { limit: huge, window: "1m" },
  quota: { limit: huge, period: "month" },
};

async function keywardWith(tier: TierConfig) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: { pro: tier },
    jwt: false,
    logger: false,
  });
  const { header } = await admittedBenchKey(keyward);
  return { keyward, header };
}

const single = await keywardWith(keyOnly);
const three = await keywardWith(layered);

summary(() => {
  group("verify(): key + owner + quota layers vs key only (memory store)", () => {
    bench("key only (v0.1 path)", async () =>
      do_not_optimize(await single.keyward.verify(single.header, benchVerifyOptions)),
    ).baseline(true);
    bench("key + owner + quota", async () =>
      do_not_optimize(await three.keyward.verify(three.header, benchVerifyOptions)),
    );
  });
});

export async function teardown() {
  await single.keyward.close();
  await three.keyward.close();
}
