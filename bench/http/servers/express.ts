/** The Express server of the HTTP benchmark, one variant per process (`HTTP_BENCH_VARIANT`). */
import type { AddressInfo } from "node:net";
import { requireApiKey } from "@keyward/express";
import express, { type RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import {
  announceReady,
  benchKeyward,
  floorCheck,
  neverRefused,
  requiredScopes,
  routePath,
  staticRateLimitHeaders,
  variantFromEnv,
} from "./variant.js";

const variant = variantFromEnv();
const { keyward, authorization } = await benchKeyward();
const app = express();

const guards: RequestHandler[] = [];
if (variant === "guard") guards.push(requireApiKey(keyward, { scopes: requiredScopes }));
if (variant === "floor") {
  const check = floorCheck(authorization);
  guards.push((req, res, next) => {
    if (!check(req.headers.authorization)) {
      res.status(401).json({ detail: "Invalid API key" });
      return;
    }
    res.set(staticRateLimitHeaders());
    next();
  });
}
if (variant === "limiter") {
  // In-memory store keyed by the client address; the same three X-RateLimit-* headers as the
  // guard (its `legacyHeaders`) rather than the draft RateLimit-* ones, so the responses match.
  guards.push(
    rateLimit({
      windowMs: 60_000,
      limit: neverRefused,
      legacyHeaders: true,
      standardHeaders: false,
    }),
  );
}
const sendHeaders = variant === "headers";
app.get(routePath, ...guards, (req, res) => {
  if (sendHeaders) res.set(staticRateLimitHeaders());
  res.json({ slug: req.params.slug });
});

const server = app.listen(0, "127.0.0.1", () => {
  void announceReady((server.address() as AddressInfo).port, authorization);
});
