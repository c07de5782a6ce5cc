/**
 * The key-encryption keys of recoverable secrets: AES-256-GCM through WebCrypto, one key named
 * `current` for sealing and every listed one for opening, so the ring can be rotated (add a key,
 * make it current) without losing a secret sealed under an older one. Each sealed secret names its
 * key and is bound to its key id (additional data), so a ciphertext copied onto another key's
 * record does not open there. The database holds only the sealed text; the ring stays in your
 * secrets, and without it a stolen table opens nothing.
 */

export interface KeyRingConfig {
  /** The id of the key new secrets are sealed with. */
  current: string;
  /** Every key by id: 32 bytes, as a `Uint8Array` or their base64 (e.g. `openssl rand -base64 32`). */
  keys: Readonly<Record<string, string | Uint8Array>>;
}

export interface KeyRing {
  seal(secret: string, keyId: string): Promise<string>;
  /** The secret, or null when it cannot be opened here (a key not in the ring, tampering). */
  open(sealed: string, keyId: string): Promise<string | null>;
}

const version = "v1";
const idPattern = /^[A-Za-z0-9_-]{1,64}$/;
const utf8 = new TextEncoder();

/** Checks the ring; throws a `TypeError` naming the field. Keys are imported on first use. */
export function keyRing(config: KeyRingConfig): KeyRing {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("recoverable({ keyRing }): { current, keys: { [id]: 32 bytes } }");
  }
  const { current, keys } = config;
  if (typeof keys !== "object" || keys === null || Object.keys(keys).length === 0) {
    throw new TypeError("recoverable({ keyRing }): `keys` must name at least one key");
  }
  const raw = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const [id, material] of Object.entries(keys)) {
    if (!idPattern.test(id)) {
      throw new TypeError(
        `recoverable({ keyRing }): the key id ${JSON.stringify(id)} must be 1–64 letters, digits, "_" or "-"`,
      );
    }
    const bytes = typeof material === "string" ? fromBase64(material) : material;
    if (!(bytes instanceof Uint8Array) || bytes.length !== 32) {
      throw new TypeError(
        `recoverable({ keyRing }): the key ${JSON.stringify(id)} must be 32 bytes (AES-256), e.g. \`openssl rand -base64 32\``,
      );
    }
    raw.set(id, Uint8Array.from(bytes));
  }
  if (!raw.has(current)) {
    throw new TypeError(
      `recoverable({ keyRing }): \`current\` ${JSON.stringify(current)} is not one of the keys (${[...raw.keys()].join(", ")})`,
    );
  }
  const imported = new Map<string, Promise<CryptoKey>>();
  const cryptoKey = (id: string) => {
    let key = imported.get(id);
    if (key === undefined) {
      key = crypto.subtle.importKey("raw", raw.get(id)!, "AES-GCM", false, ["encrypt", "decrypt"]);
      imported.set(id, key);
    }
    return key;
  };
  const additionalData = (keyId: string) => utf8.encode(`keyward-secret:${keyId}`);

  return {
    async seal(secret, keyId) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: additionalData(keyId) },
        await cryptoKey(current),
        utf8.encode(secret),
      );
      return `${version}.${current}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
    },
    async open(sealed, keyId) {
      const [tag, id, iv, body] = sealed.split(".");
      if (tag !== version || id === undefined || iv === undefined || body === undefined)
        return null;
      if (!raw.has(id)) return null;
      try {
        const opened = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: fromBase64Url(iv), additionalData: additionalData(keyId) },
          await cryptoKey(id),
          fromBase64Url(body),
        );
        return new TextDecoder().decode(opened);
      } catch {
        return null; // a wrong key or a changed byte: GCM's tag does not match
      }
    },
  };
}

function fromBase64(text: string): Uint8Array | null {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
