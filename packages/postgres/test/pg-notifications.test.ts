import { EventEmitter } from "node:events";
import type { ChannelState } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { type PgListenConnection, postgresInvalidationChannel } from "../src/index.js";
import { waitFor } from "./support/databases.js";

/** A stand-in for a pg connection whose answers the test controls. */
class FakeConnection extends EventEmitter implements PgListenConnection {
  readonly statements: string[] = [];
  hang = false;
  ended = false;
  async query(text: string) {
    this.statements.push(text);
    if (this.hang) return new Promise<never>(() => {});
    return { rows: [] };
  }
  async end() {
    this.ended = true;
  }
}

function setup(options: { heartbeatIntervalMs?: number } = {}) {
  const connections: FakeConnection[] = [];
  const states: ChannelState[] = [];
  const channel = postgresInvalidationChannel({
    connect: async () => {
      const connection = new FakeConnection();
      connections.push(connection);
      return connection;
    },
    channel: "kw_test",
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 0,
    heartbeatTimeoutMs: 30,
    onError: () => {},
  });
  return { channel, connections, states };
}

describe("postgresInvalidationChannel over a pg connection", () => {
  it("delivers notifications for its channel only, and ignores unreadable ones safely", async () => {
    const { channel, connections, states } = setup();
    const events: unknown[] = [];
    await channel.subscribe(
      (event) => events.push(event),
      (state) => states.push(state),
    );
    const connection = connections[0]!;
    expect(connection.statements).toEqual(['LISTEN "kw_test"']);
    connection.emit("notification", {
      channel: "kw_test",
      payload: '{"keyId":"k","secretHash":"h"}',
    });
    connection.emit("notification", {
      channel: "other",
      payload: '{"keyId":"x","secretHash":"y"}',
    });
    expect(events).toEqual([{ keyId: "k", secretHash: "h" }]);
    connection.emit("notification", { channel: "kw_test", payload: "garbage" });
    expect(events).toHaveLength(1);
    expect(states).toEqual(["live", "live"]); // a garbled message drops every cached record
    await channel.close();
    expect(connection.statements.at(-1)).toBe('UNLISTEN "kw_test"');
    expect(connection.ended).toBe(true);
  });

  it("reports an interruption when the connection errors, and reconnects", async () => {
    const { channel, connections, states } = setup();
    await channel.subscribe(
      () => {},
      (state) => states.push(state),
    );
    connections[0]!.emit("error", new Error("terminating connection due to administrator command"));
    expect(states).toEqual(["live", "interrupted"]);
    expect(channel.state).toBe("interrupted");
    await waitFor(async () => channel.state === "live", 30_000);
    expect(connections).toHaveLength(2);
    expect(connections[0]!.ended).toBe(true);
    expect(states).toEqual(["live", "interrupted", "live"]);
    await channel.close();
  });

  it("takes a connection that stops answering its heartbeat as lost", async () => {
    const { channel, connections, states } = setup({ heartbeatIntervalMs: 20 });
    await channel.subscribe(
      () => {},
      (state) => states.push(state),
    );
    connections[0]!.hang = true;
    await waitFor(async () => states.includes("interrupted"), 30_000);
    await waitFor(async () => channel.state === "live", 30_000);
    expect(connections.length).toBeGreaterThanOrEqual(2);
    await channel.close();
  });

  it("rejects a subscription still waiting when it is closed", async () => {
    const channel = postgresInvalidationChannel({
      connect: () => Promise.reject(new Error("ECONNREFUSED")),
      onError: () => {},
    });
    const pending = channel.subscribe(() => {});
    await channel.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(channel.subscribe(() => {})).rejects.toThrow(/closed/);
  });
});
