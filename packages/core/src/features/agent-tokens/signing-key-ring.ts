/**
 * The keys exchanged tokens are signed with: ES256 (EC P-256) or EdDSA (Ed25519) private keys as
 * JWKs, one named `current` for signing and every listed one published in the JWKS and accepted
 * for verifying. Rotating without a gap is three steps of the host's configuration: list the next
 * key (published at once, not yet signing) and wait out the JWKS's cache lifetime; make it
 * `current`; drop the old key once every token it signed has expired (the longest `ttl`).
 * Without a configured ring one ES256 key is made when the instance first needs it: right for one
 * instance, and its tokens die with the process.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";

export interface SigningKeysConfig {
  /** The id of the key that signs new tokens. */
  current: string;
  /**
   * Every key by id, as a private JWK: `{ kty: "EC", crv: "P-256", x, y, d }` (ES256) or
   * `{ kty: "OKP", crv: "Ed25519", x, d }` (EdDSA).
   */
  keys: Readonly<Record<string, JWK>>;
}

/** A public key as the JWKS publishes it. */
export interface PublishedKey extends JWK {
  kid: string;
  alg: SigningAlgorithm;
  use: "sig";
}

export type SigningAlgorithm = "ES256" | "EdDSA";

export interface SigningKeyRing {
  /** The key that signs, imported. */
  signer(): Promise<{ kid: string; alg: SigningAlgorithm; key: CryptoKey }>;
  /** The public key with this id, imported; undefined: not in the ring. */
  verifier(kid: string): Promise<{ alg: SigningAlgorithm; key: CryptoKey } | undefined>;
  /** Every key's public part, the signing one first. */
  published(): Promise<readonly PublishedKey[]>;
}

const idPattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** Checks the ring; throws a `TypeError` naming the field. Keys are imported on first use. */
export function signingKeyRing(config: SigningKeysConfig | undefined): SigningKeyRing {
  if (config === undefined) return generatedRing();
  if (typeof config !== "object" || config === null) {
    throw new TypeError("agentTokens({ signingKeys }): { current, keys: { [id]: private JWK } }");
  }
  const { current, keys } = config;
  if (typeof keys !== "object" || keys === null || Object.keys(keys).length === 0) {
    throw new TypeError("agentTokens({ signingKeys }): `keys` must name at least one key");
  }
  const entries = new Map<string, { alg: SigningAlgorithm; jwk: JWK }>();
  for (const [id, jwk] of Object.entries(keys)) {
    if (!idPattern.test(id)) {
      throw new TypeError(
        `agentTokens({ signingKeys }): the key id ${JSON.stringify(id)} must be 1–64 letters, digits, ".", "_" or "-"`,
      );
    }
    entries.set(id, { alg: algorithmOf(id, jwk), jwk });
  }
  if (!entries.has(current)) {
    throw new TypeError(
      `agentTokens({ signingKeys }): \`current\` ${JSON.stringify(current)} is not one of the keys (${[...entries.keys()].join(", ")})`,
    );
  }
  return ringOf(current, entries);
}

/** The algorithm a private JWK signs with; throws for any other kind of key. */
function algorithmOf(id: string, jwk: JWK): SigningAlgorithm {
  const problem = `agentTokens({ signingKeys }): the key ${JSON.stringify(id)} must be a private JWK, EC P-256 (ES256) or OKP Ed25519 (EdDSA)`;
  if (typeof jwk !== "object" || jwk === null || typeof jwk.d !== "string") {
    throw new TypeError(problem);
  }
  if (
    jwk.kty === "EC" &&
    jwk.crv === "P-256" &&
    typeof jwk.x === "string" &&
    typeof jwk.y === "string"
  ) {
    return "ES256";
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string") return "EdDSA";
  throw new TypeError(problem);
}

function ringOf(
  current: string,
  entries: ReadonlyMap<string, { alg: SigningAlgorithm; jwk: JWK }>,
): SigningKeyRing {
  const privateKeys = new Map<string, Promise<CryptoKey>>();
  const publicKeys = new Map<string, Promise<CryptoKey>>();
  const imported = (cache: Map<string, Promise<CryptoKey>>, id: string, jwk: JWK, alg: string) => {
    let key = cache.get(id);
    if (key === undefined) {
      key = importJWK(jwk, alg) as Promise<CryptoKey>;
      cache.set(id, key);
    }
    return key;
  };
  const publicPart = ({ kty, crv, x, y }: JWK): JWK =>
    y === undefined ? { kty, crv, x } : { kty, crv, x, y };
  const published: PublishedKey[] = [
    current,
    ...[...entries.keys()].filter((id) => id !== current),
  ].map((id) => {
    const { alg, jwk } = entries.get(id)!;
    return { ...publicPart(jwk), kid: id, alg, use: "sig" };
  });
  return {
    async signer() {
      const { alg, jwk } = entries.get(current)!;
      return { kid: current, alg, key: await imported(privateKeys, current, jwk, alg) };
    },
    async verifier(kid) {
      const entry = entries.get(kid);
      if (entry === undefined) return undefined;
      return {
        alg: entry.alg,
        key: await imported(publicKeys, kid, publicPart(entry.jwk), entry.alg),
      };
    },
    published: async () => published,
  };
}

/** One ES256 key made on first use, for an instance without a configured ring. */
function generatedRing(): SigningKeyRing {
  let ring: Promise<SigningKeyRing> | undefined;
  const made = () => {
    ring ??= (async () => {
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      const jwk = await exportJWK(privateKey);
      const kid = `generated-${crypto.randomUUID().slice(0, 8)}`;
      return ringOf(kid, new Map([[kid, { alg: "ES256" as const, jwk }]]));
    })();
    return ring;
  };
  return {
    signer: async () => (await made()).signer(),
    verifier: async (kid) => (await made()).verifier(kid),
    published: async () => (await made()).published(),
  };
}
