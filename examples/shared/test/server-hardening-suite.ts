/**
 * What a hostile or broken client meets, over raw TCP against a running example: every error the
 * framework or Node raises before Keyward sees the request still answers in the contract's shape
 * (`{"detail": "..."}`, JSON, the right status), and a client that never finishes its request is
 * cut off by the configured timeouts. The example runs with 0.5 s / 1 s timeouts
 * (`HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`) so each cut-off takes about a second; the bounds
 * below are correctness bounds (Node's defaults would hold these connections for 60 s and 300 s,
 * Fastify's for ever), not measurements.
 */

import { type RawExchange, rawExchange, requestBytes } from "@keyward/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { developmentJwtSecret } from "../src/config.js";
import { mintToken } from "../src/token.js";
import { type RunningExample, type StartTarget, startExample } from "./run-example.js";

type Example = "fetch" | "express" | "fastify" | "hono";

/** One malformed or refused request, and the status each example answers it with. */
interface Case {
  name: string;
  bytes: (session: string) => string;
  /** Examples missing here do not refuse the request (their host routes read no body). */
  status: Partial<Record<Example, number>>;
}

const headersTimeoutMs = 500;
const requestTimeoutMs = 1_000;
/** Node checks for expired connections every `headersTimeoutMs / 4`; the rest is a loaded machine. */
const slackMs = 1_500;

const profile = "/api/v1/profiles/ada";
const json = { "content-type": "application/json" };
const everywhere = (status: number) => ({
  fetch: status,
  express: status,
  fastify: status,
  hono: status,
});

const cases: Case[] = [
  {
    name: "a malformed Content-Length",
    bytes: () => requestBytes("PUT", profile, { ...json, "content-length": "12abc" }, "{}"),
    status: everywhere(400),
  },
  {
    name: "a request line that is not HTTP",
    bytes: () => "HELLO THERE\r\n\r\n",
    status: everywhere(400),
  },
  {
    name: "a header block over Node's 16 KiB",
    bytes: () => requestBytes("GET", profile, { "x-padding": "p".repeat(20_000) }),
    status: everywhere(431),
  },
  {
    name: "an unknown route",
    bytes: (session) => requestBytes("GET", "/nowhere", { authorization: session }),
    status: everywhere(404),
  },
  {
    name: "bad JSON on a base-path URL whose dot segments lead out of it",
    bytes: (session) =>
      requestBytes(
        "PUT",
        "/api/v1/api-keys/%2e%2e/scopes",
        { ...json, authorization: session },
        "{",
      ),
    status: everywhere(404),
  },
  {
    name: "TRACE on the key-management endpoints, a method a Fetch Request cannot carry",
    bytes: () => requestBytes("TRACE", "/api/v1/api-keys"),
    status: everywhere(405),
  },
  {
    name: "a profile slug whose %-escape does not decode",
    bytes: (session) => requestBytes("GET", "/api/v1/profiles/%zz", { authorization: session }),
    // Express and Fastify refuse the URL; the Fetch and Hono apps find no profile route in it.
    status: { fetch: 404, express: 400, fastify: 400, hono: 404 },
  },
  {
    name: "bad JSON on a profile route",
    bytes: (session) => requestBytes("PUT", profile, { ...json, authorization: session }, "{bad"),
    status: { express: 400, fastify: 400 },
  },
  {
    name: "a body over the host parser's limit (Express 100 kB, Fastify 1 MiB)",
    bytes: (session) =>
      requestBytes(
        "PUT",
        profile,
        { ...json, authorization: session },
        JSON.stringify({ padding: "p".repeat(1_100_000) }),
      ),
    status: { express: 413, fastify: 413 },
  },
  {
    name: "a media type no parser takes",
    bytes: (session) =>
      requestBytes(
        "PUT",
        profile,
        { "content-type": "application/xml", authorization: session },
        "<a/>",
      ),
    status: { fastify: 415 },
  },
];

export function describeServerHardening(name: string, target: StartTarget, example: Example): void {
  describe(`${name}: framework errors and slow clients`, () => {
    let server: RunningExample;
    let session = "";
    beforeAll(async () => {
      server = await startExample(target, {
        HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
        REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
      });
      const token = await mintToken({
        sub: "hardening",
        tier: "pro",
        secret: developmentJwtSecret,
      });
      session = `Bearer ${token}`;
    });
    afterAll(() => server?.stop());

    for (const { name: caseName, bytes, status } of cases) {
      const expected = status[example];
      if (expected === undefined) continue;
      it(`${caseName}: ${expected} with {"detail": ...}`, async () => {
        const reply = await rawExchange(server.origin, bytes(session));
        expectDetail(reply, expected);
      });
    }

    it("headers that never finish: 408 and closed after HEADERS_TIMEOUT_MS", async () => {
      const reply = await rawExchange(
        server.origin,
        `GET ${profile} HTTP/1.1\r\nHost: localhost\r\nX-Slow: `,
      );
      expectCutOff(reply, headersTimeoutMs);
    });

    it("a body that never finishes: 408 and closed after REQUEST_TIMEOUT_MS", async () => {
      const reply = await rawExchange(server.origin, slowCreate(session));
      expectCutOff(reply, requestTimeoutMs);
    });

    it("a body trickled a byte every 100 ms: cut off after REQUEST_TIMEOUT_MS all the same", async () => {
      const reply = await rawExchange(server.origin, slowCreate(session), {
        trickle: { byte: " ", everyMs: 100 },
      });
      expectCutOff(reply, requestTimeoutMs);
    });

    it("still serves a well-formed request afterwards, and logged no server failure", async () => {
      const reply = await rawExchange(
        server.origin,
        requestBytes("GET", "/api/v1/api-keys/scopes", { authorization: session }),
      );
      expect(reply.status).toBe(200);
      // A body cut off by the timeout is the client's failure: nothing for the 500 log (`keyward:`).
      expect(server.stderr()).not.toContain("keyward:");
    });
  });
}

/** A key creation (which reads its body) declaring 10,000 bytes and sending the first one. */
function slowCreate(session: string): string {
  return requestBytes(
    "POST",
    "/api/v1/api-keys",
    { ...json, authorization: session, "content-length": "10000" },
    "{",
  );
}

function expectDetail(reply: RawExchange, status: number): void {
  expect(reply.status, reply.raw.slice(0, 500)).toBe(status);
  expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
}

function expectCutOff(reply: RawExchange, timeoutMs: number): void {
  expect(reply.closed, "the server kept the connection open").toBe(true);
  // Not before the timeout (timers may fire a few ms early), and soon after it.
  expect(reply.closedAfterMs).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(reply.closedAfterMs).toBeLessThanOrEqual(timeoutMs + slackMs);
  expectDetail(reply, 408);
}
