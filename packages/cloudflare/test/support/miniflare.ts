/**
 * workerd through Miniflare, for the tests: the test Worker (`test-worker.ts`), bundled by esbuild
 * from the TypeScript sources, with `KeywardObject` bound as `KEYWARD` on SQLite-backed storage.
 * `workers` Worker services share that one namespace (the first defines the class, the others
 * bind to it by script name): each runs in its own isolate, as separate Workers do on Cloudflare.
 * Tests in Node reach the objects through `namespace()`, Miniflare's proxy of the binding: the
 * store runs in Node, the objects in workerd.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import type { ObjectNamespace } from "../../src/index.js";

const entry = fileURLToPath(new URL("./test-worker.ts", import.meta.url));

/** The date the test Worker's behaviour is pinned to. */
export const compatibilityDate = "2025-11-01";

export async function bundleTestWorker(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@keyward/source", "workerd", "worker", "browser"],
    logLevel: "silent",
    absWorkingDir: path.dirname(entry),
  });
  return result.outputFiles[0]!.text;
}

export interface Workerd {
  miniflare: Miniflare;
  /**
   * The `KEYWARD` namespace as the tests' store in Node reaches it: each call one HTTP request to
   * worker0, which hands it to the object through its binding (`test-app.ts`). Miniflare's own
   * proxy of the binding (`getDurableObjectNamespace`) works too, but takes a round trip for the
   * stub, one for the call and one for the body: too slow for the suite's timed sections.
   */
  namespace(): Promise<ObjectNamespace>;
  /** A request to the Worker service `name` (`worker0`, `worker1`, …). */
  fetch(worker: string, path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

export async function startWorkerd(
  options: {
    workers?: number;
    /** Answers the test schedule's webhooks (`test-schedule.ts`), in Node, as its `RECEIVER`. */
    receiver?: (request: Request) => Response | Promise<Response>;
  } = {},
): Promise<Workerd> {
  const script = await bundleTestWorker();
  const count = options.workers ?? 1;
  const miniflare = new Miniflare({
    workers: Array.from({ length: count }, (_, index) => ({
      name: `worker${index}`,
      routes: [`worker${index}.test/*`],
      modules: true,
      script,
      compatibilityDate,
      durableObjects: {
        KEYWARD:
          index === 0
            ? { className: "KeywardObject", useSQLite: true }
            : { className: "KeywardObject", scriptName: "worker0", useSQLite: true },
        ...(index === 0
          ? { KEYWARD_SCHEDULE: { className: "KeywardSchedule", useSQLite: true } }
          : {}),
      },
      ...(index === 0 && options.receiver
        ? { serviceBindings: { RECEIVER: options.receiver as never } }
        : {}),
    })),
  });
  await miniflare.ready;
  return {
    miniflare,
    async namespace() {
      return forwardingNamespace(miniflare);
    },
    async fetch(worker, requestPath, init) {
      const response = await miniflare.dispatchFetch(
        `http://${worker}.test${requestPath}`,
        init as never,
      );
      return response as unknown as Response;
    },
    dispose: () => miniflare.dispose(),
  };
}

/** A namespace whose stubs call the objects through worker0's `/object/` route. */
function forwardingNamespace(miniflare: Miniflare): ObjectNamespace {
  return {
    idFromName: (name) => name,
    get: (name) => ({
      async fetch(input, init) {
        const url = new URL(input);
        const response = await miniflare.dispatchFetch(
          `http://worker0.test/object${url.pathname}${url.search}`,
          {
            method: "POST",
            body: init?.body ?? null,
            headers: { "x-keyward-object": name as unknown as string },
          },
        );
        return response as unknown as Response;
      },
    }),
  };
}
