/**
 * Runs Keyward's benchmarks: the `*.bench.ts` files named on the command line, or every one in this
 * folder. A bench file only registers mitata benchmarks when imported; they all run together here,
 * once, so a new benchmark is just a new `*.bench.ts` file.
 *
 * @example
 * npx pnpm@10 bench                 # every *.bench.ts
 * npx pnpm@10 bench keys.bench.ts   # only these
 */
import { readdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { run } from "mitata";

const benchDir = dirname(fileURLToPath(import.meta.url));
const named = process.argv.slice(2);
const files =
  named.length > 0
    ? named.map((file) => resolve(file))
    : readdirSync(benchDir)
        .filter((file) => file.endsWith(".bench.ts"))
        .sort()
        .map((file) => resolve(benchDir, file));

if (files.length === 0) throw new Error(`No *.bench.ts files in ${benchDir}`);
// A bench file that opens connections exports `teardown`, run once every benchmark is done.
const teardowns: (() => Promise<void>)[] = [];
for (const file of files) {
  const module = (await import(pathToFileURL(file).href)) as { teardown?: () => Promise<void> };
  if (module.teardown) teardowns.push(module.teardown);
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
await run({ colors: process.stdout.isTTY === true && !process.env.NO_COLOR });
for (const teardown of teardowns) await teardown();
