import { describe, expect, it } from "vitest";
import { newestKeyFirst } from "./key-order.js";

describe("newestKeyFirst", () => {
  it("lists the latest createdAt first", () => {
    const keys = [
      { id: "key_a", createdAt: 1 },
      { id: "key_b", createdAt: 3 },
      { id: "key_c", createdAt: 2 },
    ];
    expect(keys.sort(newestKeyFirst).map((key) => key.id)).toEqual(["key_b", "key_c", "key_a"]);
  });

  it("breaks a createdAt tie by id, descending in code-unit order", () => {
    const keys = [
      { id: "key_B", createdAt: 5 },
      { id: "key_a", createdAt: 5 },
      { id: "key_A", createdAt: 5 },
      { id: "key_b", createdAt: 5 },
    ];
    expect(keys.sort(newestKeyFirst).map((key) => key.id)).toEqual([
      "key_b",
      "key_a",
      "key_B",
      "key_A",
    ]);
    expect(newestKeyFirst({ id: "key_a", createdAt: 5 }, { id: "key_a", createdAt: 5 })).toBe(0);
  });
});
