/**
 * The Worker (`worker.ts`, bundled as Wrangler would) in workerd through Miniflare, with
 * `KeywardObject` bound as `KEYWARD` on SQLite-backed storage, and an operator in this process: a
 * Keyward on `cloudflareStore` over Miniflare's proxy of that same binding, so the test does what
 * an operator's tool does and the HTTP API never offers (grant credits, read a key's holds) on the
 * very objects the Worker counts in. Miniflare, not bare workerd (`runInWorkerd`): only Miniflare
 * hands a Durable Object binding to Node.
 */
import { cloudflareStore, type ObjectNamespace } from "@keyward/cloudflare";
import { createKeyward } from "@keyward/core";
import { budgets } from "@keyward/core/budgets";
import { COMPLETIONS_SCOPE_DESCRIPTIONS } from "@keyward/example-demo/completions";
import { loadDemoConfig } from "@keyward/example-demo/config";
import { DEMO_SCOPE_DESCRIPTIONS, demoTiers } from "@keyward/testing/demo-contract";
import { Miniflare } from "miniflare";
import { bundleWorker, compatibilityDate } from "../../src/workerd.js";

export async function startWorkerWithOperator(bindings: Record<string, string> = {}) {
  const miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker({ fromSource: true }),
    compatibilityDate,
    bindings,
    durableObjects: { KEYWARD: { className: "KeywardObject", useSQLite: true } },
    host: "127.0.0.1",
    port: 0,
  });
  const url = await miniflare.ready;
  const namespace = (await miniflare.getDurableObjectNamespace(
    "KEYWARD",
  )) as unknown as ObjectNamespace;
  const store = cloudflareStore({ namespace });
  const operator = createKeyward({
    store,
    scopes: { ...DEMO_SCOPE_DESCRIPTIONS, ...COMPLETIONS_SCOPE_DESCRIPTIONS },
    tiers: demoTiers(loadDemoConfig({}).tierLimits),
    jwt: false,
    logger: false,
    features: [budgets({ holds: store.holds, sweepInterval: false })],
  });
  return {
    origin: url.origin,
    operator,
    async close() {
      await operator.close();
      await miniflare.dispose();
    },
  };
}
