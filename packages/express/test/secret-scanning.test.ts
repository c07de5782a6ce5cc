/** GitHub's secret-scanning endpoint on Express 5. */
import express from "express";
import { describeExpressSecretScanning } from "./secret-scanning-suite.js";

describeExpressSecretScanning("@keyward/express on Express 5", express);
