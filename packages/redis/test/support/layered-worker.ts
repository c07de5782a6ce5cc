/**
 * One of the processes of `layered-exactness.test.ts` (`runLayeredWorker` from
 * `@keyward/testing/layered-exactness`): a Keyward instance of its own on the shared Redis, on its
 * own connection; the store decides on the caller's clock, which the job sets.
 */
import { runLayeredWorker } from "@keyward/testing/layered-exactness";
import IORedis from "ioredis";
import { redisStore } from "../../src/index.js";

const client = new IORedis({
  host: "127.0.0.1",
  port: Number(process.env.KEYWARD_TEST_REDIS_PORT ?? 6379),
});

runLayeredWorker<{ prefix: string }>({
  store: ({ prefix }) =>
    redisStore({ client, prefix, keys: true, time: "caller", timeoutMs: 5_000 }),
  close: () => client.disconnect(),
});
