/**
 * Graceful rotation across two Node processes on one PostgreSQL (keys) and one Redis (rate limits
 * and usage): during the grace both secrets work on both instances; at the deadline the old one is
 * refused on both; a rotation or a revocation during the grace ends it on both within the
 * revocation bound. Delays are measured, as for revocation in two-process.test.ts. Run by
 * graceful-rotation-two-process.test.ts (unit suite: fewer trials, no bound on the delays) and
 * graceful-rotation-two-process.timing.test.ts (timing project: p99 bounds).
 */
import IORedis from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { localRedis } from "../../../redis/test/support/redis-url.js";
import { migrate } from "../../src/index.js";
import {
  describeOnServer,
  dropSchema,
  percentile,
  serverPool,
  uniqueSchema,
} from "../support/databases.js";
import { type Instance, startInstance, stopInstance } from "./start-instance.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, max ${Math.max(...values).toFixed(2)} ms`;

interface Rotated {
  startedAt: number;
  returnedAt: number;
  secret: string;
  previousSecretExpiresAt: string | null;
}

export interface GracefulRotationOptions {
  /** Rotations that run into their deadline (one second of grace each), and grace periods ended early. */
  trials: { deadline: number; ended: number };
  /** The bound on the p99 delays, in the timing project; none in the unit suite. */
  p99BoundMs?: number;
}

export function describeGracefulRotation({
  trials: counts,
  p99BoundMs,
}: GracefulRotationOptions): void {
  describeOnServer("graceful rotation across two processes on PostgreSQL and Redis", () => {
    const schema = uniqueSchema("grace2p");
    const redisPrefix = `kwtest:grace2p:${Date.now().toString(36)}:`;
    const pool = serverPool({ max: 2 });
    const redis = new IORedis({ ...localRedis, lazyConnect: true });
    let instances: [Instance, Instance];

    beforeAll(async () => {
      // Fails loudly if Redis is not there: this test is about a deployment on both.
      await redis.connect();
      await migrate(pool, { schema });
      const env = { KEYWARD_TEST_REDIS_PREFIX: redisPrefix };
      instances = [
        startInstance("instance A", schema, env),
        startInstance("instance B", schema, env),
      ];
      await Promise.all(instances.map((instance) => instance.ready));
    }, 60_000);

    afterAll(async () => {
      await Promise.all((instances ?? []).map(stopInstance));
      await dropSchema(pool, schema);
      await pool.end();
      const names = await redis.keys(`${redisPrefix}*`);
      if (names.length > 0) await redis.del(...names);
      redis.disconnect();
    });

    const verify = async (instance: Instance, secret: string) =>
      (await instance.request<{ ok: boolean }>({ type: "verify", secret })).ok;
    const create = (instance: Instance, ownerId: string) =>
      instance.request<{ keyId: string; secret: string }>({ type: "create", ownerId });

    /**
     * Starts watching `secret` on `watcher` until it is refused; resolves once the watch is warm,
     * with the refusal still to come (wrapped, so that awaiting this does not wait for it).
     */
    async function watchUntilRefused(watcher: Instance, secret: string) {
      let watching!: () => void;
      const isWatching = new Promise<void>((resolve) => (watching = resolve));
      const refused = watcher.request<{ refusedAt: number }>({ type: "watch", secret }, () =>
        watching(),
      );
      await isWatching;
      return { refused };
    }

    it("keeps both secrets working on both instances until the deadline, then refuses the old one on both", async () => {
      // Several keys per trial, rotated together: more samples of the deadline for the same wait.
      const trials = counts.deadline;
      const keysPerTrial = 3;
      const graceSeconds = 1;
      const afterDeadline: number[] = [];
      let checksDuringGrace = 0;
      for (let trial = 0; trial < trials; trial++) {
        const [actor, other] = trial % 2 === 0 ? instances : [instances[1], instances[0]];
        const rotations = await Promise.all(
          Array.from({ length: keysPerTrial }, async (_, index) => {
            const ownerId = `grace_${trial}_${index}`;
            const key = await create(actor, ownerId);
            const rotated = await actor.request<Rotated>({
              type: "rotate",
              ownerId,
              keyId: key.keyId,
              gracePeriodSeconds: graceSeconds,
            });
            const deadline = Date.parse(rotated.previousSecretExpiresAt!);
            expect(deadline).toBeGreaterThan(rotated.startedAt);
            // The watches start while the old secret still works (they check it first).
            const watches = await Promise.all(
              instances.map((instance) => watchUntilRefused(instance, key.secret)),
            );
            return { key, rotated, deadline, watches };
          }),
        );
        // While the watches run, both secrets keep working on both instances: the old one may be
        // refused only once its deadline has passed (a check can straddle it on a loaded machine).
        // The checks stop shortly before the deadlines, so that only the watches run across them.
        const firstDeadline = Math.min(...rotations.map((rotation) => rotation.deadline));
        while (Date.now() < firstDeadline - 200) {
          for (const { key, rotated, deadline } of rotations) {
            for (const instance of [actor, other]) {
              const sentAt = Date.now();
              if (await verify(instance, key.secret)) {
                if (sentAt < deadline) checksDuringGrace++;
              } else {
                expect(Date.now()).toBeGreaterThanOrEqual(deadline);
              }
              expect(await verify(instance, rotated.secret), `new secret on ${instance.name}`).toBe(
                true,
              );
            }
          }
          await sleep(50);
        }
        for (const { key, rotated, deadline, watches } of rotations) {
          for (const { refusedAt } of await Promise.all(watches.map((watch) => watch.refused))) {
            // Never before the deadline; the clocks are the same machine's.
            expect(refusedAt).toBeGreaterThanOrEqual(deadline);
            afterDeadline.push(refusedAt - deadline);
          }
          for (const instance of instances) {
            expect(await verify(instance, key.secret), `old secret on ${instance.name}`).toBe(
              false,
            );
            expect(await verify(instance, rotated.secret), `new secret on ${instance.name}`).toBe(
              true,
            );
          }
        }
      }
      console.info(
        `[@keyward/postgres + redis] graceful rotation, ${trials * keysPerTrial} keys, ${checksDuringGrace} checks of both secrets during the grace; old secret refused after the deadline (${afterDeadline.length} watches over both instances): ${summary(afterDeadline)}`,
      );
      expect(checksDuringGrace).toBeGreaterThan(trials * keysPerTrial * 2);
      if (p99BoundMs !== undefined)
        expect(percentile(afterDeadline, 99)).toBeLessThanOrEqual(p99BoundMs);
    }, 120_000);

    it("ends the grace on the other instance at once when the key is rotated again or revoked", async () => {
      const trials = counts.ended;
      const delays = { rotate: [] as number[], revoke: [] as number[] };
      for (let trial = 0; trial < trials; trial++) {
        for (const change of ["rotate", "revoke"] as const) {
          const [actor, watcher] = trial % 2 === 0 ? instances : [instances[1], instances[0]];
          const ownerId = `grace_end_${trial}_${change}`;
          const key = await create(actor, ownerId);
          const graceful = await actor.request<Rotated>({
            type: "rotate",
            ownerId,
            keyId: key.keyId,
            gracePeriodSeconds: 3600,
          });
          // The old secret works on the watcher (through its cache) until the change below.
          const { refused } = await watchUntilRefused(watcher, key.secret);
          const changed = await actor.request<{ returnedAt: number; secret?: string }>(
            change === "rotate"
              ? { type: "rotate", ownerId, keyId: key.keyId }
              : { type: "revoke", ownerId, keyId: key.keyId },
          );
          delays[change].push((await refused).refusedAt - changed.returnedAt);
          for (const instance of instances) {
            expect(await verify(instance, key.secret)).toBe(false);
            // A rotation without grace ends the previous secret too; a revocation ends them all.
            expect(await verify(instance, graceful.secret)).toBe(false);
            if (changed.secret) expect(await verify(instance, changed.secret)).toBe(true);
          }
        }
      }
      console.info(
        [
          `[@keyward/postgres + redis] ending a grace, ${trials} trials each; old secret refused on the other process after the change returned:`,
          `  rotate during grace: ${summary(delays.rotate)}`,
          `  revoke during grace: ${summary(delays.revoke)}`,
        ].join("\n"),
      );
      if (p99BoundMs !== undefined) {
        expect(percentile(delays.rotate, 99)).toBeLessThanOrEqual(p99BoundMs);
        expect(percentile(delays.revoke, 99)).toBeLessThanOrEqual(p99BoundMs);
      }
    }, 120_000);

    it("counts requests made with both secrets, on both instances, to the one key in Redis", async () => {
      const [a, b] = instances;
      const ownerId = "grace_usage";
      const key = await create(a, ownerId);
      const rotated = await a.request<Rotated>({
        type: "rotate",
        ownerId,
        keyId: key.keyId,
        gracePeriodSeconds: 3600,
      });
      let made = 0;
      for (const instance of [a, b]) {
        for (const secret of [key.secret, rotated.secret, key.secret]) {
          expect(await verify(instance, secret)).toBe(true);
          made++;
        }
      }
      // Usage is buffered per instance; reading it flushes the reader's, so read through both.
      await b.request({ type: "usage", ownerId, keyId: key.keyId });
      const usage = await a.request<{ totalRequests: number }>({
        type: "usage",
        ownerId,
        keyId: key.keyId,
      });
      expect(usage.totalRequests).toBe(made);
    }, 60_000);
  });
}
