import { describe, expect, it } from "vitest";
import { KeywardError } from "../errors/keyward-error.js";
import { readJsonBody } from "./read-json-body.js";

/** A POST whose body sends `first` and then fails, as a body does when its client disconnects. */
function abortedRequest(first: string): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    pull(controller) {
      controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
    },
  });
  return new Request("http://localhost/", { method: "POST", body, duplex: "half" } as RequestInit);
}

describe("readJsonBody", () => {
  it("reports a body cut off mid-way as the client's failure (400), keeping the cause", async () => {
    const error = await readJsonBody(abortedRequest('{"name":'), 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeywardError);
    expect(error).toMatchObject({
      code: "malformed_body",
      status: 400,
      detail: "Request body could not be read to its end",
    });
    expect(((error as KeywardError).cause as Error).message).toBe("aborted");
  });

  it("parses a complete body", async () => {
    const request = new Request("http://localhost/", { method: "POST", body: '{"a":1}' });
    expect(await readJsonBody(request, 1024)).toEqual({ a: 1 });
  });
});
