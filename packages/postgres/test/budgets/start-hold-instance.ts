/** Starts hold-instance.ts in a child process, with a typed request/reply over IPC. */
import { serverUrl } from "../support/databases.js";
import { forkInstance } from "../support/forked-instance.js";
import type { HoldCommand } from "./hold-instance.js";
import type { HoldsIn } from "./hold-keyward.js";

export function startHoldInstance(
  name: string,
  env: { schema: string; redisPrefix: string; holdsIn: HoldsIn },
) {
  return forkInstance<HoldCommand>({
    name,
    file: new URL("./hold-instance.ts", import.meta.url),
    cwd: new URL("../..", import.meta.url),
    env: {
      KEYWARD_TEST_DATABASE_URL: serverUrl,
      KEYWARD_TEST_SCHEMA: env.schema,
      KEYWARD_TEST_REDIS_PREFIX: env.redisPrefix,
      KEYWARD_TEST_HOLDS_IN: env.holdsIn,
    },
  });
}
