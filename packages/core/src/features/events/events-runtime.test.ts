/** `EventsRuntime.append`: the store's once-keys decide what is written; the hook hears only that. */
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import type { KeywardEvent, StoredEvent } from "../../event-model/event.js";
import { memoryEventLog } from "../../memory/memory-event-log.js";
import { memoryKeyStore } from "../../memory/memory-key-store.js";
import { cryptoRandom } from "../../random.js";
import { eventsRuntime } from "./events-runtime.js";

const start = Date.parse("2026-05-01T00:00:00.000Z");

function revokedEvent(id: string): StoredEvent {
  return {
    id,
    type: "key.revoked",
    occurredAt: start,
    owner: { type: "user", id: "alice" },
    keyId: "key_a",
    actor: { type: "operator" },
    data: {},
  };
}

describe("eventsRuntime.append", () => {
  it("writes at the clock's time, once per once-key, and tells onEvent only what it wrote", async () => {
    const clock = manualClock(start);
    const heard: KeywardEvent[] = [];
    const log = memoryEventLog();
    const runtime = eventsRuntime(
      { pruneIntervalMs: false, expiring: false, onEvent: (event) => void heard.push(event) },
      log,
      { keys: memoryKeyStore(), clock, random: cryptoRandom, reportFailure() {} },
    );
    const once = { key: "expiring:key_a", until: start + 1_000 };
    expect(await runtime.append([{ event: revokedEvent("evt_1"), once }])).toHaveLength(1);
    expect(await runtime.append([{ event: revokedEvent("evt_2"), once }])).toEqual([]);
    // The store compares with the runtime's clock: at `until`, the key is free again.
    clock.advance(1_000);
    expect(await runtime.append([{ event: revokedEvent("evt_3"), once }])).toHaveLength(1);
    expect(heard.map((event) => event.id)).toEqual(["evt_1", "evt_3"]);
    expect(log.snapshot().map((event) => event.id)).toEqual(["evt_1", "evt_3"]);
  });
});
