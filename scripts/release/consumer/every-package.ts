/**
 * Every other published package, imported for its types only: their `.d.ts` must resolve and
 * compile in the consumer's settings too (with `skipLibCheck: false` under node16).
 */
import type * as cli from "@keyward/cli";
import type * as secretScanning from "@keyward/core/secret-scanning";
import type * as express from "@keyward/express";
import type * as fastify from "@keyward/fastify";
import type * as hono from "@keyward/hono";
import type * as otel from "@keyward/otel";
import type * as postgres from "@keyward/postgres";
import type * as redis from "@keyward/redis";
import type * as testing from "@keyward/testing";
import type * as webhooks from "@keyward/webhooks";

export type EveryPackage = [
  typeof cli,
  typeof express,
  typeof fastify,
  typeof hono,
  typeof otel,
  typeof postgres,
  typeof redis,
  typeof testing,
  typeof webhooks,
  typeof secretScanning,
];
