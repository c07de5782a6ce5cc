import { describe, expect, it } from "vitest";
import { defaultMessages, fill, mergeMessages } from "./messages.js";

describe("fill", () => {
  it("fills the placeholders it is given and leaves the others as they are", () => {
    expect(fill("{used} / {limit} requests this {period}", { used: 3, limit: 5 })).toBe(
      "3 / 5 requests this {period}",
    );
    expect(fill("{toString} {name}", { name: "x" })).toBe("{toString} x");
  });
});

describe("mergeMessages", () => {
  it("merges a host's labels and event types over the defaults, group by group", () => {
    const merged = mergeMessages({
      labels: { periodMonth: "mois", loadMore: undefined },
      eventTypes: { "key.rotated": "Renouvelée", "key.custom": "Personnalisé" },
    });
    expect(merged.labels.periodMonth).toBe("mois");
    expect(merged.labels.loadMore).toBe(defaultMessages.labels.loadMore);
    expect(merged.eventTypes["key.rotated"]).toBe("Renouvelée");
    expect(merged.eventTypes["key.custom"]).toBe("Personnalisé");
    expect(merged.eventTypes["key.created"]).toBe("Created");
    expect(merged.states).toEqual(defaultMessages.states);
  });
});
