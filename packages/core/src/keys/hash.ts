/**
 * Hashing of key secrets for storage and lookup: SHA-256, or HMAC-SHA-256 keyed by a server-side
 * pepper. Keys carry ~178 bits of CSPRNG output, so one fast hash is enough (no bcrypt/argon2; see
 * docs/key-format.md). Two interchangeable implementations: Keyward's own (pure JavaScript,
 * sha256.ts, runs anywhere) and `node:crypto` (native), the latter found at run time so the core never imports a
 * `node:` module and still loads on Deno, Bun and Workers.
 */
import { hmacSha256Digest, sha256Digest } from "./sha256.js";

export type HashAlgorithm = "sha256" | "hmac-sha256";
export type HashImplementation = "auto" | "js" | "node";

/** One SHA-256 implementation. Strings are hashed as their UTF-8 bytes; output is lowercase hex. */
export interface Sha256Implementation {
  readonly name: "js" | "node";
  sha256(data: string | Uint8Array): string;
  /** An HMAC-SHA-256 function bound to `key` (RFC 2104; a key longer than 64 bytes is hashed). */
  hmacSha256(key: Uint8Array): (data: string | Uint8Array) => string;
}

const HEX_BY_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Lowercase hex of `bytes`, by table lookup. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX_BY_BYTE[bytes[i]!];
  return out;
}

const utf8 = new TextEncoder();
const toBytes = (data: string | Uint8Array) =>
  typeof data === "string" ? utf8.encode(data) : data;

/** Pure JavaScript: sha256.ts. */
export const jsSha256: Sha256Implementation = {
  name: "js",
  sha256: (data) => toHex(sha256Digest(toBytes(data))),
  hmacSha256(key) {
    const mac = hmacSha256Digest(key);
    return (data) => toHex(mac(toBytes(data)));
  },
};

/** The few `node:crypto` members used here, typed locally so no `@types/node` leaks into ours. */
interface NodeCrypto {
  /** One-shot hash: Node ≥ 20.12 / 21.7. */
  hash?: (algorithm: string, data: string | Uint8Array, outputEncoding: "hex") => string;
  createHash(algorithm: string): NodeDigest;
  createHmac(algorithm: string, key: Uint8Array): NodeDigest;
}
interface NodeDigest {
  update(data: string | Uint8Array): NodeDigest;
  digest(encoding: "hex"): string;
}

function loadNodeCrypto(): NodeCrypto | undefined {
  const runtime = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  try {
    return runtime.process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  } catch {
    return undefined;
  }
}

/**
 * Native: `node:crypto`, reached through `process.getBuiltinModule` (Node ≥ 20.16, and Deno and Bun
 * in Node-compatibility mode). `undefined` where that is unavailable, e.g. on Workers.
 */
export function nodeSha256(): Sha256Implementation | undefined {
  const nodeCrypto = loadNodeCrypto();
  if (typeof nodeCrypto?.createHash !== "function") return undefined;
  const { hash, createHash, createHmac } = nodeCrypto;
  return {
    name: "node",
    sha256:
      typeof hash === "function"
        ? (data) => hash("sha256", data, "hex")
        : (data) => createHash("sha256").update(data).digest("hex"),
    hmacSha256(key) {
      const ownKey = key.slice();
      return (data) => createHmac("sha256", ownKey).update(data).digest("hex");
    },
  };
}

function pickImplementation(choice: HashImplementation): Sha256Implementation {
  if (choice === "js") return jsSha256;
  const native = nodeSha256();
  if (choice === "node") {
    if (native === undefined) {
      throw new TypeError('implementation "node" needs node:crypto via process.getBuiltinModule');
    }
    return native;
  }
  if (choice !== "auto") {
    throw new TypeError(`Unknown hash implementation ${JSON.stringify(choice)}`);
  }
  // node:crypto measured several times faster (docs/benchmarks.md); plain JavaScript wherever it is missing.
  return native ?? jsSha256;
}

function pepperBytes(pepper: string | Uint8Array): Uint8Array {
  const bytes =
    typeof pepper === "string" ? utf8.encode(pepper) : pepper instanceof Uint8Array ? pepper : null;
  if (bytes === null || bytes.length === 0) {
    throw new TypeError(
      "pepper must be a non-empty string or Uint8Array (32 random bytes or more)",
    );
  }
  return bytes;
}

export interface SecretHasherOptions {
  /**
   * A server-side secret, kept out of the database. With it, stored hashes are HMAC-SHA-256 keyed by
   * the pepper, so a leaked table cannot be checked against guessed keys without it.
   */
  pepper?: string | Uint8Array;
}

export interface SecretHasher {
  readonly algorithm: HashAlgorithm;
  readonly implementation: "js" | "node";
  /** 64 lowercase hex characters. The secret is neither kept nor echoed. */
  hash(secret: string): string;
}

/**
 * Hashes on `node:crypto` when the runtime has it (measured several times faster, see
 * docs/benchmarks.md), otherwise in plain JavaScript (sha256.ts); the result is the same either way.
 *
 * @example
 * const hasher = createSecretHasher({ pepper: process.env.KEYWARD_PEPPER });
 * const secretHash = hasher.hash(token); // store this, look keys up by it
 */
export function createSecretHasher(options: SecretHasherOptions = {}): SecretHasher {
  return secretHasherOn("auto", options);
}

/**
 * `createSecretHasher` on a chosen implementation. Not public API (neither entry point exports
 * it): the choice only matters to the tests and benchmarks that compare the two.
 */
export function secretHasherOn(
  implementation: HashImplementation,
  { pepper }: SecretHasherOptions = {},
): SecretHasher {
  const chosen = pickImplementation(implementation);
  const digest = pepper === undefined ? chosen.sha256 : chosen.hmacSha256(pepperBytes(pepper));
  return {
    algorithm: pepper === undefined ? "sha256" : "hmac-sha256",
    implementation: chosen.name,
    hash(secret) {
      if (typeof secret !== "string") throw new TypeError("hash() expects the secret as a string");
      return digest(secret);
    },
  };
}
