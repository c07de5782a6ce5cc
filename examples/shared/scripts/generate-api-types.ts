/** Writes `src/generated/demo-api.ts` from the demo's OpenAPI document. */
import { mkdirSync, writeFileSync } from "node:fs";
import { demoApiTypesPath, generateDemoApiTypes } from "../src/openapi/demo-api-types.js";

mkdirSync(new URL(".", demoApiTypesPath), { recursive: true });
writeFileSync(demoApiTypesPath, await generateDemoApiTypes());
console.log(`wrote ${demoApiTypesPath.pathname}`);
