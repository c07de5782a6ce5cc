/**
 * `POST /api/v1/completions` on the Workers example in workerd, on Durable Objects: the shared
 * completions suite (examples/shared/test/completions-suite.ts) over HTTP, with credits granted and
 * holds read by an operator on the same objects (support/miniflare-worker.ts). The hold is taken
 * in the key's limit object and recorded in the `holds` object; the stream settles it, and an
 * aborted stream pays for what was sent.
 */
import { describeCompletionsOn } from "../../shared/test/completions-suite.js";
import { startWorkerWithOperator } from "./support/miniflare-worker.js";

describeCompletionsOn("examples/workers in workerd (Durable Objects)", async () => {
  const { origin, operator, close } = await startWorkerWithOperator({
    KEYWARD_JWT_SECRET: "workers-example-test-secret-of-at-least-32-bytes",
  });
  return {
    origin,
    async createKey(owner, scopes, credits) {
      const { id, key } = await operator.keys.create({
        ownerId: owner,
        accountTier: "enterprise",
        name: "completions",
        scopes,
        tier: "enterprise",
      });
      if (credits !== undefined)
        await operator.keys.setLimits(id, { credits: { remaining: credits } });
      return { id, key };
    },
    creditsLeft: async (owner, keyId) =>
      (await operator.keys.usage(owner, keyId)).credits?.remaining,
    held: async (keyId) => (await operator.budgets.usage(keyId))?.held,
    close,
  };
});
