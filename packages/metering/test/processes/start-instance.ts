/** Starts metered-instance.ts in a child process, with a typed request/reply over IPC. */
import { forkInstance } from "../../../postgres/test/support/forked-instance.js";
import { databaseUrl } from "../support/postgres.js";
import type { InstanceCommand } from "./metered-instance.js";

export function startInstance(
  name: string,
  env: { schema: string; redisPrefix: string; stripePort?: number; openMeterUrl?: string },
) {
  return forkInstance<InstanceCommand>({
    name,
    file: new URL("./metered-instance.ts", import.meta.url),
    cwd: new URL("../..", import.meta.url),
    env: {
      KEYWARD_TEST_DATABASE_URL: databaseUrl,
      KEYWARD_TEST_SCHEMA: env.schema,
      KEYWARD_TEST_REDIS_PREFIX: env.redisPrefix,
      KEYWARD_TEST_STRIPE_PORT: String(env.stripePort ?? ""),
      KEYWARD_TEST_OPENMETER_URL: env.openMeterUrl ?? "",
    },
  });
}

export type Instance = ReturnType<typeof startInstance>;
