/**
 * What every part of the Node adapter suite shares: a Keyward on the demo contract, the demo host
 * served with it, every server and Keyward it opens closed at the end, and request helpers.
 */
import { createKeyward, type Keyward, type KeywardConfig, memoryStore } from "@keyward/core";
import { afterAll, beforeAll } from "vitest";
import { mintJwt, newUserId } from "../http/client.js";
import { type DemoKeyward, demoKeywardConfig } from "../http/demo-contract.js";
import type { NodeAdapterConformanceOptions, NodeAdapterHost } from "./options.js";

const jwtSecret = "node-adapter-suite-secret-of-at-least-32-bytes";

/** A valid create body at the lowest demo tier. */
export const createBody = { name: "adapter test", scopes: ["profile:read"], tier: "free" };

export type NodeAdapterFixture = ReturnType<typeof nodeAdapterFixture>;

/** Registers the hooks that start the demo host once and close everything the tests open. */
export function nodeAdapterFixture(options: NodeAdapterConformanceOptions) {
  const opened: { close(): Promise<void> }[] = [];
  const keyward = suiteKeyward();
  let origin = "";

  /** A Keyward on the demo contract with an in-memory store, closed after the suite. */
  function suiteKeyward(overrides: Omit<Partial<KeywardConfig>, "features"> = {}): DemoKeyward {
    const created = createKeyward({
      store: memoryStore(),
      ...demoKeywardConfig(jwtSecret),
      ...overrides,
    });
    opened.push(created);
    return created;
  }

  /** Serves the demo host with `served` and returns its origin; closed after the suite. */
  async function serve(served: Keyward, host: NodeAdapterHost = {}): Promise<string> {
    const server = await options.serve(served, host);
    opened.push(server);
    return server.origin;
  }

  beforeAll(async () => {
    origin = await serve(keyward);
  });
  afterAll(async () => {
    // Servers first, so that no request is in flight when its Keyward closes.
    await Promise.all(opened.filter((item) => !isKeyward(item)).map((item) => item.close()));
    await Promise.all(opened.filter(isKeyward).map((item) => item.close()));
  });

  const bearer = async (sub: string, tier = "free") =>
    `Bearer ${await mintJwt(jwtSecret, { sub, tier })}`;

  /** `POST {basePath}` on `at` with a raw JSON body, as a fresh user unless told otherwise. */
  const post = async (at: string, body: string, authorization?: string, path = keyward.basePath) =>
    fetch(new URL(path, at), {
      method: "POST",
      headers: {
        authorization: authorization ?? (await bearer(newUserId())),
        "content-type": "application/json",
      },
      body,
    });

  /** A key of `ownerId`'s on the suite's shared Keyward, at the lowest tier. */
  const createKey = (ownerId: string, scopes = ["profile:read"]) =>
    keyward.keys.create({ ownerId, accountTier: "free", name: "guarded", scopes, tier: "free" });

  return {
    keyward,
    /** The demo host served with `keyward`, started before the first test. */
    origin: () => origin,
    suiteKeyward,
    serve,
    bearer,
    post,
    createKey,
  };
}

function isKeyward(item: { close(): Promise<void> }): item is Keyward {
  return "verify" in item;
}
