/**
 * Which loggers are taken as structured (pino-shaped), and what Keyward's own-shaped logger gets:
 * the request id as a third argument when the request carries one.
 */
import { describe, expect, it } from "vitest";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import { requestIdOf, tagRequestId } from "./request-id.js";
import { fromStructuredLogger, isStructuredLogger } from "./structured-logger.js";

const pinoShaped = () => {
  const records: [object, string | undefined][] = [];
  return {
    records,
    logger: {
      levels: { values: { error: 50, warn: 40 } },
      child: () => ({}),
      error: (fields: object, message?: string) => records.push([fields, message]),
      warn: (fields: object, message?: string) => records.push([fields, message]),
    },
  };
};

describe("structured loggers", () => {
  it("are told apart from Keyward's own shape by pino's levels table and child", () => {
    expect(isStructuredLogger(pinoShaped().logger)).toBe(true);
    expect(isStructuredLogger({ error() {}, warn() {} })).toBe(false);
    expect(isStructuredLogger(console)).toBe(false);
    expect(isStructuredLogger({ ...pinoShaped().logger, levels: {} })).toBe(false);
    expect(isStructuredLogger(null)).toBe(false);
  });

  it("get fields: the cause as err, the first code in its chain, the request id", () => {
    const { records, logger } = pinoShaped();
    const cause = new Error("outer", {
      cause: Object.assign(new Error("inner"), { code: "ETIMEDOUT" }),
    });
    fromStructuredLogger(logger).error("writing usage failed", cause, { requestId: "r1" });
    fromStructuredLogger(logger).warn("a warning");
    expect(records).toEqual([
      [{ keyward: true, err: cause, code: "ETIMEDOUT", requestId: "r1" }, "writing usage failed"],
      [{ keyward: true }, "a warning"],
    ]);
  });

  it("a logger of Keyward's own shape gets the request id as a third argument, from the header or the adapter's tag", async () => {
    const calls: unknown[][] = [];
    const store = memoryStore();
    // A different failure each time: the repeat filter logs the same one once per 10 s.
    let failures = 0;
    const keyward = createKeyward({
      store: {
        ...store,
        keys: {
          ...store.keys,
          listByOwner: async () => {
            failures += 1;
            throw new Error(`down ${failures}`);
          },
        },
      },
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      session: () => ({ userId: "alice", tier: "free" }),
      logger: { error: (...args: unknown[]) => calls.push(args), warn: () => {} },
    });
    const withHeader = new Request("http://host/api/v1/api-keys", {
      headers: { "x-request-id": "from-header" },
    });
    expect((await keyward.handle(withHeader)).status).toBe(500);
    const tagged = new Request("http://host/api/v1/api-keys?again", {
      headers: { "x-request-id": "from-header" },
    });
    tagRequestId(tagged, 7);
    expect((await keyward.handle(tagged)).status).toBe(500);
    const plain = new Request("http://host/api/v1/api-keys?plain");
    expect((await keyward.handle(plain)).status).toBe(500);
    expect(calls.map((call) => call[2])).toEqual([
      { requestId: "from-header" },
      { requestId: "7" },
      undefined,
    ]);
    await keyward.close();
  });

  it("ignores an X-Request-Id header past 128 characters", () => {
    const long = new Request("http://host/", { headers: { "x-request-id": "x".repeat(129) } });
    expect(requestIdOf(long)).toBeUndefined();
    expect(requestIdOf(undefined)).toBeUndefined();
  });
});
