#!/usr/bin/env node
/**
 * The `keyward` executable: runs the command line and exits with the documented code. It exits
 * explicitly once the output is written: an application module that failed while starting (a
 * configuration refused after its pool connected) leaves connections nobody can close, and the
 * process must not wait on them.
 */
import { run } from "./run.js";

const code = await run(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTerminal: process.stderr.isTTY === true,
});
const flushed = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => stream.write("", () => resolve()));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
