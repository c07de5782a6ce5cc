/**
 * Two Keyward instances in two Node processes on one database: a revocation or a rotation made
 * through one is refused by the other, and the delay between the change returning on one and the
 * old secret being refused on the other is measured. Run by two-process.test.ts (unit suite: a
 * few trials, every change seen) and two-process.timing.test.ts (timing project: 100 trials and
 * a p99 bound on the delay).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate } from "../../src/index.js";
import {
  describeOnServer,
  dropSchema,
  percentile,
  serverPool,
  uniqueSchema,
} from "../support/databases.js";
import { type Instance, startInstance, stopInstance } from "./start-instance.js";

export interface TwoProcessOptions {
  /** Per kind of change; with 100, the p99 is the second-worst trial rather than the worst. */
  trials: number;
  /** The bound on the p99 delay, in the timing project; none in the unit suite. */
  p99BoundMs?: number;
}

export function describeTwoProcesses({ trials, p99BoundMs }: TwoProcessOptions): void {
  describeOnServer("two processes on one database", () => {
    const schema = uniqueSchema("twoproc");
    const pool = serverPool({ max: 2 });
    let instances: [Instance, Instance];

    beforeAll(async () => {
      await migrate(pool, { schema });
      instances = [startInstance("instance A", schema), startInstance("instance B", schema)];
      await Promise.all(instances.map((instance) => instance.ready));
    }, 60_000);

    afterAll(async () => {
      await Promise.all((instances ?? []).map(stopInstance));
      await dropSchema(pool, schema);
      await pool.end();
    });

    it("refuses on one instance a revocation and a rotation made through the other, within milliseconds", async () => {
      const delays = { revoke: [] as number[], rotate: [] as number[] };
      const fromCall = { revoke: [] as number[], rotate: [] as number[] };
      let cacheHits = 0;
      let verifyPath = "";
      for (let trial = 0; trial < trials; trial++) {
        for (const change of ["revoke", "rotate"] as const) {
          // Alternate which process changes the key and which one is watching it.
          const [actor, watcher] = trial % 2 === 0 ? instances : [instances[1], instances[0]];
          const ownerId = `owner_${trial}_${change}`;
          const { keyId, secret } = await actor.request<{ keyId: string; secret: string }>({
            type: "create",
            ownerId,
          });
          let watching!: () => void;
          const isWatching = new Promise<void>((resolve) => (watching = resolve));
          const refused = watcher.request<{ refusedAt: number }>(
            { type: "watch", secret },
            (cacheHit) => {
              if (cacheHit) cacheHits++;
              watching();
            },
          );
          await isWatching;
          const changed = await actor.request<{
            startedAt: number;
            returnedAt: number;
            secret?: string;
          }>({
            type: change,
            ownerId,
            keyId,
          });
          const { refusedAt } = await refused;
          delays[change].push(refusedAt - changed.returnedAt);
          fromCall[change].push(refusedAt - changed.startedAt);

          // The other instance refuses the old secret too, and a rotation's new secret works on both.
          expect((await actor.request<{ ok: boolean }>({ type: "verify", secret })).ok).toBe(false);
          if (changed.secret) {
            for (const instance of instances) {
              const result = await instance.request<{ ok: boolean; verifyPath: string }>({
                type: "verify",
                secret: changed.secret,
              });
              expect(result.ok).toBe(true);
              verifyPath = result.verifyPath;
            }
          }
        }
      }

      const summary = (values: number[]) =>
        `p50 ${percentile(values, 50).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, max ${Math.max(...values).toFixed(2)} ms`;
      console.info(
        [
          `[@keyward/postgres] two processes, ${trials} trials each, verification through ${verifyPath}; cache hit before the change in ${cacheHits}/${2 * trials}`,
          `  revoke: refused on the other process after the change returned: ${summary(delays.revoke)}; after the call began: ${summary(fromCall.revoke)}`,
          `  rotate: refused on the other process after the change returned: ${summary(delays.rotate)}; after the call began: ${summary(fromCall.rotate)}`,
        ].join("\n"),
      );
      if (process.env.KEYWARD_TEST_DEBUG) console.info(JSON.stringify({ delays, fromCall }));
      expect(cacheHits).toBe(2 * trials);
      if (p99BoundMs !== undefined) {
        expect(percentile(delays.revoke, 99)).toBeLessThanOrEqual(p99BoundMs);
        expect(percentile(delays.rotate, 99)).toBeLessThanOrEqual(p99BoundMs);
      }
    }, 120_000);

    it("disables and enables a key on one instance, seen by the other within milliseconds", async () => {
      const delays = { disable: [] as number[], enable: [] as number[] };
      let cacheHits = 0;
      const changeAndWatch = async (
        actor: Instance,
        watcher: Instance,
        change: "disable" | "enable",
        key: { ownerId: string; keyId: string; secret: string },
      ) => {
        let watching!: () => void;
        const isWatching = new Promise<void>((resolve) => (watching = resolve));
        const seen = watcher.request<{ refusedAt: number }>(
          {
            type: "watch",
            secret: key.secret,
            until: change === "disable" ? "refused" : "accepted",
          },
          (cacheHit) => {
            if (cacheHit) cacheHits++;
            watching();
          },
        );
        await isWatching;
        const changed = await actor.request<{ returnedAt: number }>({
          type: change,
          ownerId: key.ownerId,
          keyId: key.keyId,
        });
        delays[change].push((await seen).refusedAt - changed.returnedAt);
      };
      for (let trial = 0; trial < trials; trial++) {
        const [actor, watcher] = trial % 2 === 0 ? instances : [instances[1], instances[0]];
        const ownerId = `owner_${trial}_disable`;
        const created = await actor.request<{ keyId: string; secret: string }>({
          type: "create",
          ownerId,
        });
        const key = { ownerId, ...created };
        await changeAndWatch(actor, watcher, "disable", key);
        await changeAndWatch(actor, watcher, "enable", key);
      }
      const summary = (values: number[]) =>
        `p50 ${percentile(values, 50).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, max ${Math.max(...values).toFixed(2)} ms`;
      console.info(
        [
          `[@keyward/postgres] two processes, ${trials} trials each; cache hit before the change in ${cacheHits}/${2 * trials}`,
          `  disable: refused on the other process after the change returned: ${summary(delays.disable)}`,
          `  enable: accepted again on the other process after the change returned: ${summary(delays.enable)}`,
        ].join("\n"),
      );
      // Disabling is a revocation's bound: the cache held the enabled record and must drop it.
      expect(cacheHits).toBeGreaterThanOrEqual(trials);
      if (p99BoundMs !== undefined) {
        expect(percentile(delays.disable, 99)).toBeLessThanOrEqual(p99BoundMs);
        expect(percentile(delays.enable, 99)).toBeLessThanOrEqual(p99BoundMs);
      }
    }, 120_000);
  });
}
