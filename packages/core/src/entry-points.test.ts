/**
 * What each entry point offers at run time. The root is what a host application uses; everything a
 * store or adapter is built from is on `toolkit`. A name that moves between them is a breaking
 * change for someone, so it is made here on purpose, with a line in docs/migrating.md.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as agentTokens from "./features/agent-tokens/index.js";
import * as events from "./features/events/index.js";
import * as imports from "./features/imports/index.js";
import * as lifecycle from "./features/lifecycle/index.js";
import * as openapi from "./features/openapi/index.js";
import * as organizations from "./features/organizations/index.js";
import * as permissions from "./features/permissions/index.js";
import * as recoverable from "./features/recoverable/index.js";
import * as secretScanning from "./features/secret-scanning/index.js";
import * as root from "./index.js";
import * as toolkit from "./toolkit.js";

describe("entry points", () => {
  it("the root exports what a host application needs, and nothing else", () => {
    expect(Object.keys(root).sort()).toEqual([
      "KeywardError",
      "combineStores",
      "createKeyward",
      "isKeywardError",
      "manualClock",
      "memoryStore",
      "systemClock",
    ]);
  });

  it("each feature's entry point exports its feature function only (agent tokens: and `protectedResource`)", () => {
    expect(Object.keys(agentTokens).sort()).toEqual(["agentTokens", "protectedResource"]);
    expect(Object.keys(events)).toEqual(["events"]);
    expect(Object.keys(imports)).toEqual(["imports"]);
    expect(Object.keys(lifecycle)).toEqual(["lifecycle"]);
    expect(Object.keys(openapi)).toEqual(["openapi"]);
    expect(Object.keys(organizations)).toEqual(["organizations"]);
    expect(Object.keys(recoverable)).toEqual(["recoverable"]);
    expect(Object.keys(secretScanning)).toEqual(["secretScanning"]);
    expect(Object.keys(permissions)).toEqual(["permissions"]);
  });

  it("the toolkit shares no name with the root", () => {
    expect(Object.keys(toolkit).filter((name) => name in root)).toEqual([]);
  });

  it("the create-key schema is typed as a Standard Schema, not as its library's type", () => {
    type CreateKeySchema = root.Keyward["schemas"]["createKey"];
    expectTypeOf<CreateKeySchema>().toEqualTypeOf<StandardSchemaV1<unknown, root.CreateKeyBody>>();
  });
});
