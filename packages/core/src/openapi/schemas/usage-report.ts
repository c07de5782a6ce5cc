/** `GET {basePath}/{key_id}/usage`'s answer as an arktype type, checked against `UsageReport`. */
import { type } from "arktype";
import type { UsageReport } from "../../api/key-api-types.js";
import { type Expect, isoDateTime, type SameShape } from "./shared.js";

const count = type("number.integer >= 0");

export const usageReportType = type({
  keyId: "string",
  totalRequests: count,
  lastUsedAt: isoDateTime.or("null"),
  endpoints: type({
    method: "string",
    route: type("string").describe("The route template, never the raw path"),
    count,
  })
    .array()
    .describe("Per method and route, most used first"),
  daily: type({
    date: type("string").configure({ format: "date" } as never),
    count,
  })
    .array()
    .describe("Per UTC day, oldest first"),
  "quota?": type({
    limit: count,
    remaining: count,
    period: "'day' | 'month'",
    resetsAt: isoDateTime,
  }).describe("The owner's quota as this key counts against it; present when the tier has one"),
  "credits?": type({
    remaining: count,
    refill: type({ amount: count, period: "'day' | 'month'" }).or("null"),
    refillsAt: isoDateTime.or("null"),
  }).describe("The key's credits; present when the key has them"),
});

export type UsageReportTypeMatchesTheApi = Expect<
  SameShape<typeof usageReportType.infer, UsageReport>
>;
