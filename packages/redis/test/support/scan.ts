/** Direct reads of what a store wrote, bypassing the store (the conformance suite's probes). */
import type { Redis as IORedis } from "ioredis";

/** Every key under `prefix` with its value, as plain data. */
export async function dumpPrefix(
  client: IORedis,
  prefix: string,
): Promise<Record<string, unknown>> {
  const dump: Record<string, unknown> = {};
  for (const key of await keysUnder(client, prefix)) {
    const type = await client.type(key);
    if (type === "string") dump[key] = await client.get(key);
    else if (type === "hash") dump[key] = await client.hgetall(key);
    else if (type === "set") dump[key] = await client.smembers(key);
    else dump[key] = type;
  }
  return dump;
}

export async function keysUnder(client: IORedis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await client.scan(
      cursor,
      "MATCH",
      `${escapeGlob(prefix)}*`,
      "COUNT",
      1000,
    );
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  return keys;
}

/** Deletes every key under `prefix`, one key per command so that a cluster node accepts it. */
export async function deletePrefix(client: IORedis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  for (let i = 0; i < keys.length; i += 500) {
    const pipeline = client.pipeline();
    for (const key of keys.slice(i, i + 500)) pipeline.unlink(key);
    await pipeline.exec();
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
