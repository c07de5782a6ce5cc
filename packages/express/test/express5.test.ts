/** @keyward/express on Express 5: the HTTP conformance suite and the adapter's own checks. */
import { describeHttpConformance, forwardTo } from "@keyward/testing";
import express from "express";
import { afterAll, beforeAll } from "vitest";
import { describeExpressAdapter } from "./adapter-suite.js";
import { demoApp, demoKeyward, jwtSecret, type Listening, listen } from "./demo.js";

const keyward = demoKeyward();
let server: Listening;
beforeAll(async () => {
  server = await listen(demoApp(express, keyward));
});
afterAll(async () => {
  await server.close();
  await keyward.close();
});

describeHttpConformance("@keyward/express on Express 5", {
  fetch: forwardTo(() => server.origin),
  jwtSecret,
  organizations: true,
  keyUpdates: true,
});
describeExpressAdapter("Express 5", express);
