/**
 * The attackers of `forged-key-flood.ts`, in a process of their own: requests with fresh well-formed
 * forged keys from `FLOOD_FROM` (default 127.0.0.2, a loopback address other than the legitimate
 * client's) to `FLOOD_URL`, for `FLOOD_MS`, over at most `FLOOD_CONCURRENCY` connections
 * (default 50). Without `FLOOD_RATE`, a closed loop: each connection sends its next request as
 * soon as the last is answered, so the flood runs as fast as the server answers. With
 * `FLOOD_RATE` (requests a second), an open loop at that rate, the same offered load whatever the
 * server does; a request due while all connections are busy is dropped and counted as such.
 * Tells its parent `"started"`, then reports `{ statuses, requests, seconds }`.
 */
import { Agent, request } from "node:http";
import { createKeyFormat } from "@keyward/core/toolkit";
import { closedLoop } from "../redis-closed-loop.js";

export interface FloodReport {
  requests: number;
  seconds: number;
  /** Status code → how many answers had it. */
  statuses: Record<string, number>;
}

const url = new URL(process.env.FLOOD_URL ?? "");
if (url.hostname !== "127.0.0.1") throw new Error("the flood only goes to 127.0.0.1");
const concurrency = Number(process.env.FLOOD_CONCURRENCY ?? 50);
const durationMs = Number(process.env.FLOOD_MS ?? 5_000);
const rate = Number(process.env.FLOOD_RATE ?? 0);
const agent = new Agent({
  keepAlive: true,
  maxSockets: concurrency,
  localAddress: process.env.FLOOD_FROM ?? "127.0.0.2",
});
const format = createKeyFormat();
const statuses: Record<string, number> = {};

const send = () =>
  new Promise<void>((resolve, reject) => {
    const forged = request(
      url,
      { agent, headers: { authorization: `Bearer ${format.generate()}` } },
      (response) => {
        const status = String(response.statusCode);
        statuses[status] = (statuses[status] ?? 0) + 1;
        response.resume();
        response.on("end", resolve);
      },
    );
    forged.on("error", reject);
    forged.end();
  });

/** Sends what is due at `rate` since the start, never more than `concurrency` at once. */
async function openLoop(): Promise<{ requests: number; seconds: number }> {
  const started = performance.now();
  let due = 0;
  let inFlight = 0;
  let answered = 0;
  while (performance.now() - started < durationMs) {
    const target = Math.floor(((performance.now() - started) / 1_000) * rate);
    for (; due < target; due++) {
      if (inFlight >= concurrency) {
        statuses.dropped = (statuses.dropped ?? 0) + 1;
        continue;
      }
      inFlight++;
      void send()
        .catch(() => {
          statuses.error = (statuses.error ?? 0) + 1;
        })
        .finally(() => {
          inFlight--;
          answered++;
        });
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { requests: answered, seconds: (performance.now() - started) / 1_000 };
}

process.send?.("started");
let report: FloodReport;
if (rate > 0) {
  report = { ...(await openLoop()), statuses };
} else {
  const result = await closedLoop(send, { concurrency, durationMs });
  report = { requests: result.calls, seconds: result.calls / result.opsPerSecond, statuses };
}
agent.destroy();
process.send?.(report);
process.disconnect?.();
