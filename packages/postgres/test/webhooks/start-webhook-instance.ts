/** Starts webhook-instance.ts in a child process, with a typed request/reply over IPC. */
import { serverUrl } from "../support/databases.js";
import { forkInstance } from "../support/forked-instance.js";
import type { WebhookCommand } from "./webhook-instance.js";

export function startWebhookInstance(
  name: string,
  env: {
    schema: string;
    redisPrefix: string;
    keysOn: "postgres" | "redis";
    webhooks: object;
    hangAfterSend?: boolean;
  },
) {
  return forkInstance<WebhookCommand>({
    name,
    file: new URL("./webhook-instance.ts", import.meta.url),
    cwd: new URL("../..", import.meta.url),
    env: {
      KEYWARD_TEST_DATABASE_URL: serverUrl,
      KEYWARD_TEST_SCHEMA: env.schema,
      KEYWARD_TEST_REDIS_PREFIX: env.redisPrefix,
      KEYWARD_TEST_KEYS: env.keysOn,
      KEYWARD_TEST_WEBHOOKS: JSON.stringify(env.webhooks),
      KEYWARD_TEST_HANG_AFTER_SEND: env.hangAfterSend ? "1" : "0",
    },
  });
}

export type WebhookInstance = ReturnType<typeof startWebhookInstance>;
