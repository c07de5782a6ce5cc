/**
 * A store that is misconfigured, unreachable at start, or lost while the demo runs: one readable
 * line with the cause, never a driver's error object or ioredis's "Unhandled error event", and a
 * non-zero exit when the demo cannot start. The mid-run case uses a private redis-server, killed
 * under the running example.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningExample, startExample, startExpectingFailure } from "./run-example.js";

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

describe("the demo's store failures", () => {
  it.each([
    [
      "DATABASE_URL",
      "not-a-url",
      /^Could not start the demo: DATABASE_URL is not a URL; it must start with postgres:\/\/ or postgresql:\/\//,
    ],
    [
      "DATABASE_URL",
      "mysql://db/app",
      /^Could not start the demo: DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//,
    ],
    [
      "REDIS_URL",
      "localhost:6379",
      /^Could not start the demo: REDIS_URL must start with redis:\/\/ or rediss:\/\//,
    ],
  ])(
    "%s=%j: one line naming the variable and the expected form, exit 1",
    async (name, value, message) => {
      const { code, stderr } = await startExpectingFailure("fetch", { [name]: value });
      expect(code).toBe(1);
      expect(lines(stderr)).toHaveLength(1);
      expect(stderr).toMatch(message);
    },
  );

  it("an unreachable database: one line with the cause, exit 1", async () => {
    const port = await closedPort();
    const { code, stderr } = await startExpectingFailure("fetch", {
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/test`,
    });
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      `Could not start the demo: Could not prepare the database at DATABASE_URL: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
  });

  it("an unreachable Redis (by the name localhost): one line with the cause, exit 1", async () => {
    const port = await closedPort();
    const { code, stderr } = await startExpectingFailure("fetch", {
      REDIS_URL: `redis://localhost:${port}`,
    });
    expect(code).toBe(1);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(
      new RegExp(
        `^Could not start the demo: Could not connect to Redis at REDIS_URL: .*ECONNREFUSED .*:${port}`,
      ),
    );
  });

  describe("Redis lost while the demo runs", () => {
    let redis: ChildProcess | undefined;
    let running: RunningExample | undefined;
    afterEach(async () => {
      await running?.stop();
      redis?.kill("SIGKILL");
    });

    it("prints one line for the outage, however many reconnection attempts fail", async () => {
      const port = await closedPort();
      redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", ""], {
        stdio: "ignore",
      });
      const started = Date.now();
      let example: RunningExample | undefined;
      while (!example) {
        try {
          example = await startExample("fetch", { REDIS_URL: `redis://127.0.0.1:${port}` });
        } catch (error) {
          // redis-server may still be starting.
          if (Date.now() - started > 10_000) throw error;
        }
      }
      running = example;
      const before = running.stderr().length;
      const exited = new Promise((resolve) => redis!.once("exit", resolve));
      redis.kill("SIGKILL");
      await exited;
      // ioredis retries after 50, 100, 150… ms: a dozen failed attempts in 4 s.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const printed = lines(running.stderr().slice(before));
      expect(printed.join("\n")).not.toContain("Unhandled error event");
      expect(printed, printed.join("\n")).toHaveLength(1);
      expect(printed[0]).toMatch(/^Redis: /);
    }, 60_000);
  });
});
