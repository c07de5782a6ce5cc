import { afterAll } from "vitest";
import { migrate } from "../src/index.js";
import { describePostgresConformance } from "./support/conformance.js";
import { sharedPGlite, uniqueSchema } from "./support/databases.js";

const pglite = sharedPGlite();
const schema = uniqueSchema("pglite");
let migrated: Promise<unknown> | undefined;
const setup = async () => {
  const client = await pglite.get();
  migrated ??= migrate(client, { schema });
  await migrated;
  return { client, schema };
};
afterAll(() => pglite.close());

// PGlite can LISTEN, so the store runs with its verification cache on.
describePostgresConformance("postgres on PGlite (cached)", setup);
describePostgresConformance("postgres on PGlite (no cache)", setup, { cache: false });
describePostgresConformance("postgres on PGlite (buffered usage)", setup, {
  usageFlushIntervalMs: 50,
});
