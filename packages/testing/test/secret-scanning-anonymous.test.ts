/**
 * The secret-scanning endpoint takes requests from anyone, and its signature can only be checked
 * once the body is in: what an anonymous client can make it hold. Bodies here are streams this test
 * controls, so "never read" and "still reading" are observed, not inferred from timing.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { secretScanning } from "@keyward/core/secret-scanning";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoKeywardConfig, type ScannerKeyServer, startScannerKeyServer } from "../src/index.js";

const jwtSecret = "secret-scanning-anonymous-secret-of-32-bytes";
const url = "http://host.test/api/v1/api-keys/secret-scanning";

/** A body that delivers nothing until `finish`, and says whether anyone asked it for bytes. */
function heldBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { pulled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        state.pulled = true;
        // Never enqueues on its own: the client is stalled until `finish`.
        return new Promise(() => {});
      },
      // No read ahead: `pull` runs only when a reader asks for bytes.
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    state,
    finish(text: string) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  };
}

const post = (body: ReadableStream<Uint8Array>, headers: Record<string, string>) =>
  new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);

/** The answer, or "pending" if none came within `ms`. */
async function within(ms: number, answer: Promise<Response>): Promise<Response | "pending"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"pending">((resolve) => {
    timer = setTimeout(() => resolve("pending"), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("secret scanning: anonymous work before the signature", () => {
  let keys: ScannerKeyServer;
  beforeAll(async () => {
    keys = await startScannerKeyServer();
  });
  afterAll(() => keys.close());

  const instance = (maxConcurrentReports?: number) =>
    createKeyward({
      store: memoryStore(),
      ...demoKeywardConfig(jwtSecret, {
        features: [
          secretScanning({
            keysUrl: keys.url,
            ...(maxConcurrentReports === undefined ? {} : { maxConcurrentReports }),
          }),
        ],
      }),
      logger: false,
    });

  it("refuses missing or unknown signature headers without reading a byte of the body", async () => {
    const keyward = instance();
    try {
      const signed = await keys.sign("[]");
      const cases: Record<string, string>[] = [
        {},
        { "Github-Public-Key-Identifier": signed["Github-Public-Key-Identifier"]! },
        { "Github-Public-Key-Signature": signed["Github-Public-Key-Signature"]! },
        { ...signed, "Github-Public-Key-Signature": "bm90IGEgc2lnbmF0dXJl" },
        { ...signed, "Github-Public-Key-Identifier": "0".repeat(64) },
      ];
      for (const headers of cases) {
        const body = heldBody();
        const answer = await within(2_000, keyward.handle(post(body.stream, headers)));
        expect(answer).not.toBe("pending");
        const response = answer as Response;
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ code: "invalid_signature" });
        expect(body.state.pulled).toBe(false);
      }
    } finally {
      await keyward.close();
    }
  });

  it("reads at most maxConcurrentReports bodies at once; the next report is refused at once", async () => {
    const keyward = instance(2);
    try {
      const text = "[]";
      const headers = await keys.sign(text);
      const held = [heldBody(), heldBody()];
      const reading = held.map((body) => keyward.handle(post(body.stream, headers)));
      // Both are reading (stalled mid-body), holding the two slots.
      await expect.poll(() => held.every((body) => body.state.pulled)).toBe(true);
      const third = heldBody();
      const refused = await within(2_000, keyward.handle(post(third.stream, headers)));
      expect(refused).not.toBe("pending");
      expect((refused as Response).status).toBe(503);
      expect((refused as Response).headers.get("retry-after")).toBe("1");
      expect(await (refused as Response).json()).toMatchObject({ code: "reports_busy" });
      expect(third.state.pulled).toBe(false);
      // The stalled clients finish: their reports are answered, and their slots are free again.
      for (const body of held) body.finish(text);
      for (const answer of await Promise.all(reading)) expect(answer.status).toBe(200);
      const next = await keyward.handle(new Request(url, { method: "POST", headers, body: text }));
      expect(next.status).toBe(200);
    } finally {
      await keyward.close();
    }
  });

  it("frees a slot when a body fails mid-read", async () => {
    const keyward = instance(1);
    try {
      const headers = await keys.sign("[]");
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const failing = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
      });
      const answer = keyward.handle(post(failing, headers));
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.error(new Error("client went away"));
      expect((await answer).status).toBe(400);
      const next = await keyward.handle(new Request(url, { method: "POST", headers, body: "[]" }));
      expect(next.status).toBe(200);
    } finally {
      await keyward.close();
    }
  });
});
