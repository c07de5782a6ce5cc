import { describe, expect, it } from "vitest";
import { decodeInvalidation, encodeInvalidation } from "./invalidation-payload.js";

describe("invalidation payloads", () => {
  it("round-trips an event and sends nothing but keyId and secretHash", () => {
    const event = { keyId: "key_1", secretHash: "abc", secret: "sk_live_never" };
    const payload = encodeInvalidation(event);
    expect(JSON.parse(payload)).toEqual({ keyId: "key_1", secretHash: "abc" });
    expect(decodeInvalidation(payload)).toEqual({ keyId: "key_1", secretHash: "abc" });
  });

  it("keeps only the two fields of a payload that carries more", () => {
    expect(decodeInvalidation('{"keyId":"k","secretHash":"h","extra":1}')).toEqual({
      keyId: "k",
      secretHash: "h",
    });
  });

  it.each([
    ["not JSON", "garbled{"],
    ["JSON null", "null"],
    ["a number", "42"],
    ["an array", '["k","h"]'],
    ["no secretHash", '{"keyId":"k"}'],
    ["a keyId that is not a string", '{"keyId":1,"secretHash":"h"}'],
  ])("answers null for %s", (_, payload) => {
    expect(decodeInvalidation(payload)).toBeNull();
  });
});
