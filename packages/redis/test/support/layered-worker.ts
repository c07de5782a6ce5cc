/**
 * One of the processes of `layered-exactness.test.ts` (`runLayeredWorker` from
 * `@keyward/testing/layered-exactness`): a Keyward instance of its own on the shared Redis, on its
 * own connection; the store decides on the caller's clock, which the job sets.
 */
import { runLayeredWorker } from "@keyward/testing/layered-exactness";
import IORedis from "ioredis";
import { redisStore } from "../../src/index.js";
import { localRedis } from "./redis-url.js";

// The tests' Redis, from KEYWARD_TEST_REDIS_URL, which this process inherits.
const client = new IORedis(localRedis);

runLayeredWorker<{ prefix: string }>({
  store: ({ prefix }) =>
    redisStore({ client, prefix, keys: true, time: "caller", timeoutMs: 5_000 }),
  close: () => client.disconnect(),
});
