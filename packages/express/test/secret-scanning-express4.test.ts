/** GitHub's secret-scanning endpoint on Express 4 (the adapter's `express` import pointed at it). */
import express4 from "express4";
import { vi } from "vitest";
import { describeExpressSecretScanning } from "./secret-scanning-suite.js";

vi.mock("express", async () => await import("express4"));

describeExpressSecretScanning("@keyward/express on Express 4", express4);
