/**
 * Runs the Worker in `workerd`, Cloudflare's Workers runtime, from Node: esbuild bundles
 * `worker.ts` the way Wrangler does (one ES module, Workers' export conditions), a Cap'n Proto
 * config names the module, its bindings and a socket, and `workerd serve` runs it. The binary comes
 * from the `workerd` npm package (installed by `pnpm install`); nothing is downloaded here.
 *
 * Used by the tests and by `pnpm start` in this folder. Wrangler (`wrangler dev`, which needs Node
 * 22) drives the same binary with the same kind of config.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The date the Worker's behaviour is pinned to (wrangler.toml's `compatibility_date`). */
export const compatibilityDate = "2025-11-01";

const workerEntry = fileURLToPath(new URL("./worker.ts", import.meta.url));

export interface WorkerdOptions {
  /**
   * The Worker's source, in place of `worker.ts` (a guide's code block, say); its imports resolve
   * from this folder, so it may use what this example depends on.
   */
  source?: string;
  /** Another entry module of this folder in place of `worker.ts`, e.g. `"hono-worker.ts"`. */
  entry?: string;
  /** Text bindings (`[vars]` and secrets in Wrangler's terms): `KEYWARD_JWT_SECRET` and so on. */
  bindings?: Record<string, string>;
  /** `host:port` to listen on; default `127.0.0.1:0`, a free port. */
  address?: string;
  /**
   * Resolve `@keyward/*` to their TypeScript sources (the `@keyward/source` export condition), as
   * the tests do; by default the built `dist/` is bundled, as for a user of the published packages.
   */
  fromSource?: boolean;
  /** Where the Worker's console output goes; default: this process's stderr. */
  onOutput?: (text: string) => void;
  /**
   * Let the Worker's `fetch` reach loopback addresses (a test's key server on 127.0.0.1). By
   * default workerd's outbound network is the public internet only, as on Cloudflare.
   */
  allowLoopbackFetch?: boolean;
  /**
   * Bind `KeywardObject` (which the Worker must export) as `KEYWARD`, on SQLite-backed storage in
   * the run's temporary folder (removed by `stop`), as wrangler.toml's `[[durable_objects.bindings]]` and `[[migrations]]`
   * do. Default: for `worker.ts` (no `source`, no `entry`), which keeps its keys there.
   */
  durableObjects?: boolean;
}

export interface RunningWorker {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The bundled module's size in bytes, as Cloudflare would receive it (before compression). */
  bundleBytes: number;
  stop(): Promise<void>;
}

/**
 * Bundles the Worker (`worker.ts`, or `source` in its place) into one ES module, as `wrangler
 * deploy` would upload it.
 */
export async function bundleWorker(
  options: Pick<WorkerdOptions, "fromSource" | "source" | "entry"> = {},
): Promise<string> {
  const { fromSource = false, source, entry } = options;
  const result = await build({
    ...(source === undefined
      ? { entryPoints: [entry ? path.join(path.dirname(workerEntry), entry) : workerEntry] }
      : {
          stdin: {
            contents: source,
            resolveDir: path.dirname(workerEntry),
            sourcefile: "worker.ts",
            loader: "ts",
          },
        }),
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    // Wrangler's conditions for Workers; Keyward's source condition only for the tests.
    conditions: [...(fromSource ? ["@keyward/source"] : []), "workerd", "worker", "browser"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/**
 * Starts `workerd serve` on the bundled Worker; resolves once its socket listens.
 *
 * @example
 * const worker = await runInWorkerd({ bindings: { KEYWARD_JWT_SECRET: secret } });
 * await fetch(`${worker.origin}/api/v1/api-keys/scopes`, { headers: { authorization } });
 * await worker.stop();
 */
export async function runInWorkerd(options: WorkerdOptions = {}): Promise<RunningWorker> {
  const bundle = await bundleWorker(options);
  const directory = await mkdtemp(path.join(tmpdir(), "keyward-workerd-"));
  const objectsDirectory = path.join(directory, "durable-objects");
  await mkdir(objectsDirectory);
  await writeFile(path.join(directory, "worker.js"), bundle);
  await writeFile(
    path.join(directory, "config.capnp"),
    workerdConfig(
      options.bindings ?? {},
      options.address ?? "127.0.0.1:0",
      options.allowLoopbackFetch === true,
      (options.durableObjects ?? (options.source === undefined && options.entry === undefined))
        ? objectsDirectory
        : undefined,
    ),
  );
  const output = options.onOutput ?? ((text: string) => process.stderr.write(text));
  // fd 3 is workerd's control channel: it reports the port it bound there, as JSON lines.
  const child = spawn(workerdBinary(), ["serve", "config.capnp", "--control-fd=3", "--verbose"], {
    cwd: directory,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  child.stdout!.setEncoding("utf8").on("data", output);
  child.stderr!.setEncoding("utf8").on("data", output);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const port = await listeningPort(child, exited);
    return { origin: `http://127.0.0.1:${port}`, bundleBytes: Buffer.byteLength(bundle), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The workerd binary from the npm package's platform-specific dependency. */
function workerdBinary(): string {
  const require = createRequire(import.meta.url);
  // The package's `bin/workerd` is a Node shim; its main export is the real binary's path, so
  // signals reach workerd itself.
  return require("workerd").default ?? require("workerd");
}

/**
 * One Worker service, its module and text bindings (and, with `durableObjects`, the `KEYWARD`
 * namespace of its `KeywardObject` class), and one HTTP socket in front of it.
 */
function workerdConfig(
  bindings: Record<string, string>,
  address: string,
  allowLoopbackFetch: boolean,
  /** Where the objects' SQLite files go; undefined: no Durable Objects. */
  objectsDirectory: string | undefined,
): string {
  const durableObjects = objectsDirectory !== undefined;
  const textBindings = [
    ...Object.entries(bindings).map(
      ([name, value]) => `(name = ${capnpString(name)}, text = ${capnpString(value)})`,
    ),
    ...(durableObjects ? ['(name = "KEYWARD", durableObjectNamespace = "KeywardObject")'] : []),
  ].join(",\n      ");
  // wrangler.toml's `new_sqlite_classes`: the class's objects have SQLite storage (`enableSql`).
  const objects = durableObjects
    ? `
  durableObjectNamespaces = [
    (className = "KeywardObject", uniqueKey = "keyward-example-KeywardObject", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "durable-objects"),`
    : "";
  // SQLite-backed objects need a disk: in memory, workerd offers the key-value API only.
  const objectsDisk = durableObjects
    ? `,\n    (name = "durable-objects", disk = (path = ${capnpString(objectsDirectory)}, writable = true))`
    : "";
  // A service named "internet" replaces workerd's default outbound network (public only).
  const loopbackNetwork = allowLoopbackFetch
    ? `,\n    (name = "internet", network = (allow = ["public", "local"]))`
    : "";
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker)${loopbackNetwork}${objectsDisk} ],
  sockets = [ (name = "http", address = ${capnpString(address)}, http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = ${capnpString(compatibilityDate)},
  bindings = [
      ${textBindings}
  ],${objects}
);
`;
}

/** Cap'n Proto text literals take the same escapes as JSON strings. */
function capnpString(value: string): string {
  return JSON.stringify(value);
}

function listeningPort(child: ChildProcess, exited: Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("workerd did not listen within 30 s")), 30_000);
    let buffered = "";
    const control = child.stdio[3] as NodeJS.ReadableStream;
    control.setEncoding("utf8");
    control.on("data", (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split("\n").slice(0, -1)) {
        const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
        if (message.event === "listen" && message.socket === "http" && message.port) {
          clearTimeout(timer);
          resolve(message.port);
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`workerd exited (${child.exitCode ?? child.signalCode}) before listening`));
    });
  });
}
