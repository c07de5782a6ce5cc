import { describe, expect, it } from "vitest";
import { bucketFor, parseBucket } from "./bucket.js";

describe("rate-limit bucket names", () => {
  it("reads back whose bucket it built, for any id, colons included", () => {
    for (const id of ["k_1", "a:b", "", "user:7", "key:9"]) {
      expect(parseBucket(bucketFor.key(id))).toEqual({ kind: "key", keyId: id });
      expect(parseBucket(bucketFor.user(id))).toEqual({ kind: "user", userId: id });
    }
  });

  it("keeps the names stores already hold: key:<id> and user:<sub>", () => {
    expect(bucketFor.key("k_1")).toBe("key:k_1");
    expect(bucketFor.user("u_1")).toBe("user:u_1");
  });

  it("owns no other name", () => {
    for (const bucket of ["ip:1.2.3.4", "keys:1", "Key:1", "", "k_1"]) {
      expect(parseBucket(bucket)).toBeUndefined();
    }
  });
});
