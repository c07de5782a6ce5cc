/**
 * A stand-in for GitHub's published secret-scanning keys: a real HTTP server on 127.0.0.1 serving
 * `{ "public_keys": [{ key_identifier, key, is_current }] }`, with P-256 key pairs generated per
 * test run, and a way to sign a report the way GitHub does (base64 DER ECDSA SHA-256 over the raw
 * body). It can rotate to a new key, go down (connection refused) or hang (never answer).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScannerKeyServer {
  /** Where the keys are published: `secretScanning.keysUrl`. */
  readonly url: string;
  /** The identifier of the key `sign` uses. */
  readonly currentIdentifier: string;
  /** How many times the key list was fetched. */
  readonly fetches: number;
  /** GitHub's two headers for `body`, signed with the current key. */
  sign(body: string | Uint8Array): Promise<Record<string, string>>;
  /** A new current key, published beside the old ones (GitHub publishes both during a rotation). */
  rotate(): Promise<void>;
  /** `down`: the next fetches are refused; `hang`: they never get an answer; `up`: normal. */
  setState(state: "up" | "down" | "hang"): void;
  close(): Promise<void>;
}

interface SigningKey {
  identifier: string;
  privateKey: CryptoKey;
  pem: string;
}

export async function startScannerKeyServer(): Promise<ScannerKeyServer> {
  const keys: SigningKey[] = [await newSigningKey()];
  let state: "up" | "down" | "hang" = "up";
  let fetches = 0;
  const hanging = new Set<import("node:http").ServerResponse>();
  const server: Server = createServer((request, response) => {
    fetches++;
    if (state === "down") {
      request.socket.destroy();
      return;
    }
    if (state === "hang") {
      hanging.add(response);
      return;
    }
    const current = keys.at(-1)!;
    response.setHeader("content-type", "application/json");
    response.end(
      JSON.stringify({
        public_keys: keys.map((key) => ({
          key_identifier: key.identifier,
          key: key.pem,
          is_current: key === current,
        })),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/meta/public_keys/secret_scanning`,
    get currentIdentifier() {
      return keys.at(-1)!.identifier;
    },
    get fetches() {
      return fetches;
    },
    async sign(body) {
      const key = keys.at(-1)!;
      const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
      const raw = new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          key.privateKey,
          bytes as Uint8Array<ArrayBuffer>,
        ),
      );
      return {
        "Github-Public-Key-Identifier": key.identifier,
        "Github-Public-Key-Signature": base64(rawToDer(raw)),
      };
    },
    async rotate() {
      keys.push(await newSigningKey());
    },
    setState(next) {
      state = next;
      if (next !== "hang") {
        for (const response of hanging) response.destroy();
        hanging.clear();
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function newSigningKey(): Promise<SigningKey> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", spki));
  const lines = base64(spki)
    .match(/.{1,64}/g)!
    .join("\n");
  return {
    // GitHub's identifiers are 64 hex characters (a SHA-256 of the key).
    identifier: [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join(""),
    privateKey: pair.privateKey,
    pem: `-----BEGIN PUBLIC KEY-----\n${lines}\n-----END PUBLIC KEY-----\n`,
  };
}

/** WebCrypto's `r || s` as the ASN.1 DER GitHub sends: written here independently of the core's parser. */
export function rawToDer(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.subarray(start);
    const value = trimmed[0]! & 0x80 ? [0, ...trimmed] : [...trimmed];
    return [0x02, value.length, ...value];
  };
  const half = raw.length / 2;
  const body = [...integer(raw.subarray(0, half)), ...integer(raw.subarray(half))];
  return new Uint8Array([0x30, body.length, ...body]);
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
