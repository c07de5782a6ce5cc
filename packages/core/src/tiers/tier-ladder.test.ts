import { describe, expect, it } from "vitest";
import { createTierLadder } from "./tier-ladder.js";

const limit = { limit: 1, window: "1m" } as const;
const ladder = createTierLadder({
  free: { rateLimit: limit },
  pro: { rateLimit: limit },
  enterprise: { rateLimit: limit },
});

describe("TierLadder.effective", () => {
  it("is the lower of the key's tier and the owner's, for every pair", () => {
    for (const keyTier of ladder.names) {
      for (const ownerTier of ladder.names) {
        const lower = ladder.rank(keyTier) <= ladder.rank(ownerTier) ? keyTier : ownerTier;
        expect(ladder.effective(keyTier, ownerTier), `${keyTier} / ${ownerTier}`).toBe(lower);
      }
    }
  });

  it("leaves the key's tier alone while the owner's is not known", () => {
    for (const keyTier of ladder.names) expect(ladder.effective(keyTier, null)).toBe(keyTier);
  });

  it("runs a key on a tier no longer configured at the lowest tier", () => {
    expect(ladder.effective("legacy", null)).toBe("free");
    expect(ladder.effective("legacy", "enterprise")).toBe("free");
  });

  it("treats an owner tier no longer configured as the lowest, as for a session", () => {
    expect(ladder.effective("pro", "legacy")).toBe("free");
    expect(ladder.resolveAccountTier("legacy")).toBe("free");
  });

  it("always answers a configured tier, so its policy exists", () => {
    for (const keyTier of [...ladder.names, "legacy", ""]) {
      for (const ownerTier of [...ladder.names, "legacy", null]) {
        expect(() => ladder.policy(ladder.effective(keyTier, ownerTier))).not.toThrow();
      }
    }
  });
});
