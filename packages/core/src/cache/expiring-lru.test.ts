import { describe, expect, it } from "vitest";
import { expiringLru } from "./expiring-lru.js";

describe("expiringLru", () => {
  it("expires entries at their deadline", () => {
    const lru = expiringLru<number>(10);
    lru.set("a", 1, 100);
    expect(lru.get("a", 99)).toBe(1);
    expect(lru.get("a", 100)).toBeUndefined();
    expect(lru.size).toBe(0);
  });

  it("evicts the least recently used entry past the bound, telling the owner", () => {
    const dropped: string[] = [];
    const lru = expiringLru<number>(2, (key) => dropped.push(key));
    lru.set("a", 1, 1_000);
    lru.set("b", 2, 1_000);
    lru.get("a", 0);
    lru.set("c", 3, 1_000);
    expect(dropped).toEqual(["b"]);
    expect(lru.get("a", 0)).toBe(1);
    expect(lru.get("b", 0)).toBeUndefined();
    lru.set("a", 4, 1_000);
    lru.delete("c");
    expect(dropped).toEqual(["b", "a", "c"]);
    expect(lru.size).toBe(1);
  });
});
