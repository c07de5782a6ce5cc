#!/usr/bin/env node
/** The `keyward` executable: runs the command line and exits with the documented code. */
import { run } from "./run.js";

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
