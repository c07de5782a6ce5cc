/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) in plain JavaScript: the hash of key secrets
 * on runtimes without `node:crypto` (Workers, browsers). Synchronous, because key lookup hashes
 * synchronously and Web Crypto's `digest` is asynchronous only.
 *
 * Kept here rather than taken from `@oslojs/crypto` (used until December 2026): its `sha2` entry
 * also put the SHA-224 and SHA-512 tables and its byte-order helpers into every Workers bundle,
 * about 7 KB minified for the 1 KB used. The test vectors and the cross-check against
 * `node:crypto` in hash.test.ts hold this file to the standard.
 */

/** The round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const ROUND_CONSTANTS = Uint32Array.of(
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
);

/** The initial hash value: the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const INITIAL_HASH = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const rotateRight = (word: number, bits: number) => (word >>> bits) | (word << (32 - bits));

/** The 32-byte SHA-256 digest of `data`. */
export function sha256Digest(data: Uint8Array): Uint8Array {
  // The message, a 1 bit, zeros, and its length in bits as 64 bits big-endian, to whole 64-byte blocks.
  const padded = new Uint8Array(Math.ceil((data.length + 9) / 64) * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bitLength = data.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x1_0000_0000));
  view.setUint32(padded.length - 4, bitLength >>> 0);

  // Sums are wrapped to 32 bits by `| 0` or by storing them in a Uint32Array.
  const hash = Uint32Array.from(INITIAL_HASH);
  const schedule = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) schedule[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const early = schedule[t - 15]!;
      const late = schedule[t - 2]!;
      const sigma0 = rotateRight(early, 7) ^ rotateRight(early, 18) ^ (early >>> 3);
      const sigma1 = rotateRight(late, 17) ^ rotateRight(late, 19) ^ (late >>> 10);
      schedule[t] = schedule[t - 16]! + sigma0 + schedule[t - 7]! + sigma1;
    }
    let [a, b, c, d, e, f, g, h] = hash as unknown as number[] as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    for (let t = 0; t < 64; t++) {
      const sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25);
      const choice = (e & f) ^ (~e & g);
      const temp1 = (h + sum1 + choice + ROUND_CONSTANTS[t]! + schedule[t]!) | 0;
      const sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22);
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const temp2 = (sum0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + temp1) | 0;
      d = c;
      c = b;
      b = a;
      a = (temp1 + temp2) | 0;
    }
    hash[0]! += a;
    hash[1]! += b;
    hash[2]! += c;
    hash[3]! += d;
    hash[4]! += e;
    hash[5]! += f;
    hash[6]! += g;
    hash[7]! += h;
  }

  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, hash[i]!);
  return digest;
}

/**
 * HMAC-SHA-256 bound to `key` (RFC 2104: a key longer than the 64-byte block is hashed first).
 * The key is copied into the padded blocks, so changing the caller's bytes later changes nothing.
 */
export function hmacSha256Digest(key: Uint8Array): (data: Uint8Array) => Uint8Array {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Digest(key) : key);
  const innerPad = block.map((byte) => byte ^ 0x36);
  const outerPad = block.map((byte) => byte ^ 0x5c);
  return (data) => sha256Digest(concat(outerPad, sha256Digest(concat(innerPad, data))));
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}
