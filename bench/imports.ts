/**
 * Bring your keys at scale (issue 28): 100,000 keys in better-auth's format (`ba_` + 64 letters,
 * stored as SHA-256 base64url) imported with `keyward.imports`, then verified.
 *
 * - import: the whole list checked (`check`), then written in atomic batches of 1,000, on the
 *   memory store and on PostgreSQL (a fresh schema, dropped at the end; `IMPORT_PG=off` skips it):
 *   wall time, and the memory store's heap and RSS growth (after a GC, with `--expose-gc`);
 * - verify, on the memory store, each against a native Keyward key in the same run: an imported key
 *   after its first use (rehashed: found as a native key's hash), an imported key's first use (its
 *   old hash looked up, then rehashed), and a forged token in the imported format.
 * Keyward runs with a pepper, so an imported SHA-256 is not Keyward's hash and every first use
 * rehashes (without one, the imported hash already is Keyward's and nothing is rehashed).
 *
 * @example
 * cd bench && node --expose-gc --conditions=@keyward/source --import tsx imports.ts
 */
import { createHash, randomBytes } from "node:crypto";
import { createKeyward, type KeywardStore, memoryStore } from "@keyward/core";
import { imports } from "@keyward/core/imports";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { postgresStore } from "@keyward/postgres";
import pg from "pg";

const total = Number(process.env.IMPORT_KEYS ?? 100_000);
const batchSize = 1_000;
const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const scopes = { "profile:read": "Read profiles" };
const tiers = { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } };
const pepper = randomBytes(32).toString("base64");

const token = () =>
  `ba_${Array.from(randomBytes(64), (byte) => letters[byte % letters.length]).join("")}`;
const tokens = Array.from({ length: total }, token);
const records = tokens.map((secret, i) => ({
  hash: {
    value: createHash("sha256").update(secret).digest("base64url"),
    algorithm: "sha256",
    encoding: "base64url",
  },
  prefix: "ba_",
  owner: `user_${i % 5_000}`,
  name: "imported",
  scopes: ["profile:read"],
  tier: "free",
  createdAt: "2025-06-01T00:00:00Z",
}));

const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => {
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
};
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

function instance(store: KeywardStore) {
  return createKeyward({
    store,
    scopes,
    tiers,
    jwt: false,
    logger: false,
    failedLookups: false,
    keys: { pepper },
    features: [imports({ prefixes: ["ba_"] })],
  });
}

async function importAll(keyward: ReturnType<typeof instance>) {
  const started = performance.now();
  const checked = keyward.imports.check(records);
  if (checked.refused.length > 0) throw new Error(JSON.stringify(checked.refused[0]));
  const checkedMs = performance.now() - started;
  let imported = 0;
  for (let start = 0; start < total; start += batchSize) {
    imported += (await keyward.imports.importKeys(records.slice(start, start + batchSize)))
      .imported;
  }
  return { imported, checkedMs, totalMs: performance.now() - started };
}

async function timeVerify(
  keyward: ReturnType<typeof instance>,
  secrets: readonly string[],
  rounds: number,
) {
  const started = performance.now();
  let ok = 0;
  for (let round = 0; round < rounds; round++) {
    for (const secret of secrets) {
      const result = await keyward.verify(`Bearer ${secret}`, { route: "GET /x" });
      if (result.ok) ok++;
    }
  }
  const calls = rounds * secrets.length;
  return { usPerCall: ((performance.now() - started) * 1000) / calls, ok, calls };
}

// --- memory store: import, memory, verify ---
const before = memory();
const store = memoryStore();
const keyward = instance(store);
const memoryImport = await importAll(keyward);
const after = memory();
console.log(
  `memory store: ${memoryImport.imported} keys imported in ${(memoryImport.totalMs / 1000).toFixed(2)} s (check ${(memoryImport.checkedMs / 1000).toFixed(2)} s), heap +${mb(after.heapUsed - before.heapUsed)}, RSS +${mb(after.rss - before.rss)}`,
);

const { key: native } = await keyward.keys.create({
  ownerId: "native",
  accountTier: "free",
  name: "native",
  scopes: ["profile:read"],
  tier: "free",
});
const firstUse = tokens.slice(0, 20_000);
const warm = tokens.slice(20_000, 20_010);
await timeVerify(keyward, warm, 1); // their first use: rehashed
await new Promise((resolve) => setTimeout(resolve, 10));
const forged = Array.from({ length: 20_000 }, token);
// Alternated runs, so that neither side has the warmer JIT.
const results = {
  native: [] as number[],
  rehashed: [] as number[],
  first: [] as number[],
  forged: [] as number[],
};
for (let run = 0; run < 2; run++) {
  results.native.push((await timeVerify(keyward, [native], 20_000)).usPerCall);
  results.rehashed.push((await timeVerify(keyward, warm, 2_000)).usPerCall);
  const slice = firstUse.slice(run * 10_000, (run + 1) * 10_000);
  const first = await timeVerify(keyward, slice, 1);
  if (first.ok !== first.calls) throw new Error("an imported key did not verify");
  results.first.push(first.usPerCall);
  results.forged.push(
    (await timeVerify(keyward, forged.slice(run * 10_000, (run + 1) * 10_000), 1)).usPerCall,
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const best = (values: number[]) => Math.min(...values);
const nativeUs = best(results.native);
for (const [name, values] of Object.entries(results)) {
  console.log(
    `verify ${name.padEnd(9)} ${best(values).toFixed(2)} µs/call  ×${(best(values) / nativeUs).toFixed(2)} of native`,
  );
}
const stored = store.keys.snapshot();
const rehashedCount = stored.filter((key) => key.name === "imported").length;
console.log(`(${rehashedCount} imported records in the store)`);
await keyward.close();

// --- PostgreSQL: import ---
if (process.env.IMPORT_PG !== "off") {
  const pool = new pg.Pool({
    connectionString: "postgresql://postgres@127.0.0.1:5432/test",
    max: 4,
  });
  const schema = `keyward_import_bench_${process.pid}`;
  const pgStore = postgresStore({
    client: pool,
    schema,
    cache: false,
    invalidation: false,
    timeoutMs: 30_000,
  });
  try {
    await pgStore.migrate();
    const onPostgres = instance({
      keys: pgStore.keys,
      usage: pgStore.usage,
      rateLimits: memoryRateLimitStore(),
    });
    const result = await importAll(onPostgres);
    const again = performance.now();
    let unchanged = 0;
    for (let start = 0; start < total; start += batchSize) {
      unchanged += (await onPostgres.imports.importKeys(records.slice(start, start + batchSize)))
        .unchanged;
    }
    console.log(
      `PostgreSQL: ${result.imported} keys imported in ${(result.totalMs / 1000).toFixed(2)} s; the same import again: ${unchanged} unchanged in ${((performance.now() - again) / 1000).toFixed(2)} s`,
    );
    await onPostgres.close();
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}
