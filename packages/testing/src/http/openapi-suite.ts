import type { OpenApiDocument } from "@keyward/core";
import { describe, expect, it } from "vitest";
import type { SuiteClient } from "./client.js";
import { expectJson } from "./expectations.js";

/**
 * When the implementation's document says it serves itself (`openapi.serve`), the adapter must
 * pass `GET {basePath}/openapi.json` through, without credentials, and answer with that document.
 */
export function openApiSuite(client: SuiteClient, document: OpenApiDocument): void {
  const path = `${client.basePath}/openapi.json`;
  const served = document.paths[path]?.get !== undefined;
  describe("the OpenAPI document", () => {
    it.runIf(served)("is served at {basePath}/openapi.json without credentials", async () => {
      const reply = await client.send("GET", path);
      expectJson(reply, 200);
      expect(reply.body).toEqual(document);
    });
  });
}
